/*
Copyright 2026 The Spillway Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package podbench

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/framework"
)

// TwoHopsNamespace is the consumer's namespace offloaded to the broker.
const TwoHopsNamespace = "bench-two-hops"

// GenoaID is the broker's identity; the fleet has no clusters/genoa, so the
// benchmark names it as e2e/suites/broker does.
var GenoaID = framework.Identity{ClusterID: "5f7a9c2e-1d3b-4e6f-8a0c-6b8d0e2f4a61", ClusterName: "genoa"}

// setupBroker makes genoa a broker between rome and milan, every offer and
// peering as the CLI writes them (`spillway generate offer genoa --cluster
// milan`, `spillway generate offer rome --cluster genoa --broker
// --sharing-percentage 100`, `spillway peer`), as e2e/suites/broker does.
// rome keeps its direct peering with milan for the one-hop path.
func (b *Bench) setupBroker(ctx context.Context, root string) error {
	if err := framework.Install(ctx, root, b.Genoa, GenoaID); err != nil {
		return fmt.Errorf("installing the broker genoa: %w", err)
	}
	if err := framework.PeerWithOffer(ctx, b.Genoa, GenoaID, b.Milan, b.milanID, manifests.Offer{}); err != nil {
		return fmt.Errorf("peering genoa with milan: %w", err)
	}
	hundred := int32(100)
	if err := framework.PeerWithOffer(ctx, b.Rome, b.romeID, b.Genoa, GenoaID, manifests.Offer{Broker: true, SharingPercentage: &hundred}); err != nil {
		return fmt.Errorf("peering rome with the broker genoa: %w", err)
	}
	return nil
}

// onlyCluster selects the virtual node of one peer, so each path's
// namespace goes exactly one way: one hop to liqo-milan, two to liqo-genoa.
func onlyCluster(clusterID string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
		Key: virtualkubeletv1alpha1.RemoteClusterIDLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{clusterID},
	}}}}}
}

// offload creates the consumer's namespace ns offloaded to the peer
// clusterID and returns its twin's name there once the offloading is Ready.
func (b *Bench) offload(ctx context.Context, ns, clusterID string) (string, error) {
	if err := b.romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return "", err
	}
	if err := b.romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: ns},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.DefaultNameMappingStrategy,
			ClusterSelector: onlyCluster(clusterID)},
	}); err != nil {
		return "", err
	}
	return readyTwin(ctx, b.romeC, ns)
}

// readyTwin waits for the NamespaceOffloading "offloading" of ns to be Ready
// and returns the name of the twin namespace it made.
func readyTwin(ctx context.Context, c client.Client, ns string) (string, error) {
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var twin string
	err := framework.Poll(wctx, func(ctx context.Context) error {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "offloading"}, no); err != nil {
			return err
		}
		if no.Status.OffloadingPhase != offloadingv1alpha1.ReadyOffloadingPhase {
			return fmt.Errorf("NamespaceOffloading %s/offloading is %q, not Ready", ns, no.Status.OffloadingPhase)
		}
		twin = no.Status.RemoteNamespaceName
		return nil
	})
	return twin, err
}

// twoHopsNamespaces offloads the two-hop namespace to genoa and finds where
// genoa's generated NamespaceOffloading put its twin in milan.
func (b *Bench) twoHopsNamespaces(ctx context.Context) error {
	var err error
	if b.genoaTwin, err = b.offload(ctx, TwoHopsNamespace, GenoaID.ClusterID); err != nil {
		return fmt.Errorf("offloading %s to the broker genoa: %w", TwoHopsNamespace, err)
	}
	if b.milanTwinOfTwin, err = readyTwin(ctx, b.genoaC, b.genoaTwin); err != nil {
		return fmt.Errorf("genoa offloading its twin %s onward to milan: %w", b.genoaTwin, err)
	}
	return nil
}

// twinsEmpty fails while a pod or ShadowPod of path p is left where the
// pods ran: milan's twin, and for two hops genoa's twin as well.
func (b *Bench) twinsEmpty(ctx context.Context, p path) error {
	switch p.mode {
	case Offloaded:
		return namespaceEmpty(ctx, b.milanC, "milan", b.twin)
	case TwoHops:
		if err := namespaceEmpty(ctx, b.genoaC, "genoa", b.genoaTwin); err != nil {
			return err
		}
		return namespaceEmpty(ctx, b.milanC, "milan", b.milanTwinOfTwin)
	}
	return nil
}

func namespaceEmpty(ctx context.Context, c client.Client, cluster, ns string) error {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(ns)); err != nil {
		return err
	}
	shadows := &virtualkubeletv1alpha1.ShadowPodList{}
	if err := c.List(ctx, shadows, client.InNamespace(ns)); err != nil {
		return err
	}
	if len(pods.Items)+len(shadows.Items) > 0 {
		return fmt.Errorf("%d pods and %d ShadowPods left in %s's twin namespace %s", len(pods.Items), len(shadows.Items), cluster, ns)
	}
	return nil
}
