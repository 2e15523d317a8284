//go:build e2e

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

package broker_test

import (
	"context"
	"time"

	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/framework"
)

const (
	regionLabel = "topology.kubernetes.io/region"
	zoneLabel   = "topology.kubernetes.io/zone"
	// exposedLabelConflict is the broker offer's warning condition.
	exposedLabelConflict = "ExposedLabelConflict"
)

// offerToGenoa applies, as `spillway generate offer genoa --cluster
// <provider> --cpu ... --label ...` writes it, a provider's offer to genoa:
// its current limits (another spec may have halved milan's) and labels.
func offerToGenoa(ctx context.Context, provider string, l corev1.ResourceList, labels map[string]string) {
	GinkgoHelper()
	cluster := milan
	if provider == "naples" {
		cluster = naples
	}
	Expect(framework.ApplyFiles(ctx, cluster, manifests.Offer{Provider: provider, Consumer: "genoa", ClusterID: genoaID.ClusterID,
		Limits: l, Labels: labels}.Files())).To(Succeed())
}

// romeSeesOnGenoa waits for rome's liqo-genoa to carry labels and none of absent.
func romeSeesOnGenoa(ctx context.Context, labels map[string]string, absent ...string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		n := &corev1.Node{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Name: genoaNode}, n)).To(Succeed())
		for k, v := range labels {
			g.Expect(n.Labels).To(HaveKeyWithValue(k, v), "labels of rome's %s", genoaNode)
		}
		for _, k := range absent {
			g.Expect(n.Labels).NotTo(HaveKey(k), "labels of rome's %s", genoaNode)
		}
	}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
}

// The providers' labels travel two hops: milan's and naples' offers label
// genoa's virtual nodes, genoa's broker offer derives the keys it exposes
// from them, and rome's virtual node for genoa carries what they agree on.
// Nothing here is simulated: no pod runs, and every hop (the providers'
// offer controllers, genoa's ForeignClusters and virtual nodes, genoa's
// broker offer, rome's ForeignCluster and virtual node) is the real one.
var _ = Describe("a broker's exposed labels", Ordered, func() {
	It("carries to rome the label its providers agree on, and not the one they disagree on", func(ctx context.Context) {
		// `spillway generate offer rome --cluster genoa --broker --sharing-percentage 100 --expose-labels region,zone`
		hundred := int32(100)
		Expect(framework.ApplyFiles(ctx, genoa, manifests.Offer{Provider: "genoa", Consumer: "rome", ClusterID: romeID.ClusterID,
			Broker: true, SharingPercentage: &hundred, ExposedLabelKeys: []string{regionLabel, zoneLabel}}.Files())).To(Succeed())

		// milan alone labelled: both keys reach rome.
		offerToGenoa(ctx, "milan", milanOffer, map[string]string{regionLabel: "eu-south", zoneLabel: "zone-a"})
		romeSeesOnGenoa(ctx, map[string]string{regionLabel: "eu-south", zoneLabel: "zone-a"})

		// naples agrees on the region, not on the zone: the zone leaves rome's node.
		offerToGenoa(ctx, "naples", naplesOffer, map[string]string{regionLabel: "eu-south", zoneLabel: "zone-b"})
		romeSeesOnGenoa(ctx, map[string]string{regionLabel: "eu-south"}, zoneLabel)

		offer := &sharingv1alpha1.ResourceOffer{}
		Eventually(func(g Gomega) {
			g.Expect(genoaC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
			g.Expect(conditions.IsTrue(offer, exposedLabelConflict)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(conditions.GetMessage(offer, exposedLabelConflict)).To(ContainSubstring(
			`topology.kubernetes.io/zone left out: the providers' virtual nodes disagree (liqo-milan="zone-a", liqo-naples="zone-b")`))
		Expect(conditions.IsReady(offer)).To(BeTrue(), "a conflict is a warning: Flux health checks still pass")
	}, SpecTimeout(5*time.Minute))

	It("gives rome the key once the providers' offers agree in git", func(ctx context.Context) {
		offerToGenoa(ctx, "naples", naplesOffer, map[string]string{regionLabel: "eu-south", zoneLabel: "zone-a"})
		romeSeesOnGenoa(ctx, map[string]string{regionLabel: "eu-south", zoneLabel: "zone-a"})
		Eventually(func(g Gomega) {
			offer := &sharingv1alpha1.ResourceOffer{}
			g.Expect(genoaC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
			g.Expect(conditions.Has(offer, exposedLabelConflict)).To(BeFalse())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))
})
