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

package plan

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// peer is one ForeignCluster of a consumer, resolved through the fleet.
type peer struct {
	// Name is the ForeignCluster's name.
	Name      string
	ClusterID string
	// Provider is the fleet folder whose identity is ClusterID, "" when the
	// provider is not in this fleet.
	Provider string
	// Offer is the provider's ResourceOffer to the consumer, nil when the
	// provider is unknown or offers nothing.
	Offer *sharingv1alpha1.ResourceOffer
	// Node is the virtual node the consumer will have for the peer, nil when
	// none is expected (outgoing peering off, or no offer).
	Node *corev1.Node
}

// peersOf resolves a consumer's ForeignClusters into the virtual nodes it
// will have: the labels are those its providers declare in git, in their
// ResourceOffer for this consumer, as the controller copies them.
func (s *Snapshot) peersOf(c *Cluster) []peer {
	var out []peer
	for _, fc := range sortedForeignClusters(c) {
		p := peer{Name: fc.Name, ClusterID: fc.Spec.ClusterIdentity.ClusterID}
		if fc.Spec.OutgoingPeeringEnabled == discoveryv1alpha1.PeeringEnabledNo {
			out = append(out, p)
			continue
		}
		var labels map[string]string
		if prov := s.clusterByID(p.ClusterID); prov != nil {
			p.Provider = prov.Name
			p.Offer = offerFor(prov, c)
			if p.Offer == nil {
				out = append(out, p)
				continue
			}
			labels = p.Offer.Spec.Labels
		}
		name := fc.Spec.ClusterIdentity.ClusterName
		if name == "" {
			name = fc.Name
		}
		node := virtualkubeletv1alpha1.VirtualNodeName(name)
		p.Node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: node, Labels: virtualkubeletv1alpha1.VirtualNodeLabels(node, p.ClusterID, labels)}}
		out = append(out, p)
	}
	return out
}

func (s *Snapshot) clusterByID(id string) *Cluster {
	if id == "" {
		return nil
	}
	for _, c := range s.Clusters {
		if c.IdentityErr == nil && c.Identity.ClusterID == id {
			return c
		}
	}
	return nil
}

// offerFor finds the provider's offer to the consumer: by cluster ID, or by
// name when the consumer's folder declares no identity.
func offerFor(provider, consumer *Cluster) *sharingv1alpha1.ResourceOffer {
	for _, key := range sortedKeys(provider.Offers) {
		o := provider.Offers[key]
		if consumer.IdentityErr == nil && o.Spec.ClusterID == consumer.Identity.ClusterID {
			return o
		}
		if consumer.IdentityErr != nil && o.Spec.ClusterName == consumer.Name {
			return o
		}
	}
	return nil
}

// selection is the set of peers a clusterSelector picks.
type selection struct {
	names []string
	err   error
}

func (s selection) String() string {
	if len(s.names) == 0 {
		return "no peer"
	}
	return strings.Join(s.names, ", ")
}

// selectPeers evaluates a clusterSelector on the synthetic virtual nodes with
// policies.SelectedClusters, the function the controller uses.
func selectPeers(selector *corev1.NodeSelector, peers []peer) selection {
	var nodes []corev1.Node
	for _, p := range peers {
		if p.Node != nil {
			nodes = append(nodes, *p.Node)
		}
	}
	ids, err := policies.SelectedClusters(selector, nodes)
	if err != nil {
		return selection{err: err}
	}
	chosen := map[string]bool{}
	for _, id := range ids {
		chosen[id] = true
	}
	var names []string
	for _, p := range peers {
		if p.Node != nil && chosen[p.ClusterID] {
			names = append(names, p.Name)
		}
	}
	sort.Strings(names)
	return selection{names: names}
}

// minus returns the names of a not in b.
func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, n := range b {
		in[n] = true
	}
	var out []string
	for _, n := range a {
		if !in[n] {
			out = append(out, n)
		}
	}
	return out
}

func sortedForeignClusters(c *Cluster) []*discoveryv1alpha1.ForeignCluster {
	out := make([]*discoveryv1alpha1.ForeignCluster, 0, len(c.ForeignClusters))
	for _, k := range sortedKeys(c.ForeignClusters) {
		out = append(out, c.ForeignClusters[k])
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// brokerRoutes says, for each selected peer whose offer to consumer is a
// broker's, where that broker runs the consumer's pods: the providers whose
// virtual nodes its offer can resell, as its folder declares them (not the
// consumer's own, and not another broker's, which are never resold;
// policies.ResellableNodes). Empty when no selected peer is a broker.
func (s *Snapshot) brokerRoutes(consumer *Cluster, selected []string, peers []peer) []string {
	chosen := map[string]bool{}
	for _, n := range selected {
		chosen[n] = true
	}
	var out []string
	for _, p := range peers {
		if !chosen[p.Name] || p.Offer == nil || !p.Offer.Spec.Broker {
			continue
		}
		var onward []string
		for _, q := range s.peersOf(s.Clusters[p.Provider]) {
			resold := q.Node != nil && q.ClusterID != consumer.Identity.ClusterID && (q.Offer == nil || !q.Offer.Spec.Broker)
			if resold {
				onward = append(onward, q.Name)
			}
		}
		if len(onward) == 0 {
			out = append(out, fmt.Sprintf("%s is a broker (spec.broker in %s's offer), but its folder declares no provider offering it resources, so its pods run nowhere yet", p.Name, p.Provider))
			continue
		}
		out = append(out, fmt.Sprintf("%s is a broker (spec.broker in %s's offer): its pods run at %s, two hops away", p.Name, p.Provider, strings.Join(onward, ", ")))
	}
	return out
}
