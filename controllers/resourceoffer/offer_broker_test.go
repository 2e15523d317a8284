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

package resourceoffer

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func asBroker(o *sharingv1alpha1.ResourceOffer) { o.Spec.Broker = true }

func providerNode(name, id string, alloc corev1.ResourceList) corev1.Node {
	n := *newNode(name, alloc)
	n.Labels = map[string]string{virtualkubeletv1alpha1.TypeLabel: virtualkubeletv1alpha1.TypeVirtualNode,
		virtualkubeletv1alpha1.RemoteClusterIDLabel: id}
	return n
}

func TestBrokerOfferIsAShareOfItsProvidersOffers(t *testing.T) {
	nodes := []corev1.Node{
		*newNode("worker", rl("cpu", "64")),
		providerNode("liqo-milan", "milan-id", rl("cpu", "8")),
		providerNode("liqo-turin", "turin-id", rl("cpu", "4")),
	}
	pods := []corev1.Pod{
		// the consumer's own re-offloaded pod: its virtual node already counts it.
		*newPod("liqo-demo-rome", "offloaded", "liqo-milan", rl("cpu", "1"), map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}),
		// another consumer's pod on a provider uses that provider's offer.
		*newPod("liqo-demo-paris", "other", "liqo-turin", rl("cpu", "2"), map[string]string{sharingv1alpha1.OriginClusterIDLabel: "paris-id"}),
	}
	for _, tc := range []struct {
		name  string
		offer *sharingv1alpha1.ResourceOffer
		cpu   string
	}{
		{name: "100 percent of 8 + (4 - 2)", offer: newOffer("rome", asBroker, withPercentage(100)), cpu: "10"},
		{name: "50 percent of the sum", offer: newOffer("rome", asBroker, withPercentage(50)), cpu: "5"},
		{name: "without broker mode the virtual nodes are left out", offer: newOffer("rome", withPercentage(100)), cpu: "64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			offered, _ := offeredResources(tc.offer, nodes, usedBy(pods, tc.offer.Spec.ClusterID))
			g.Expect(offered.Cpu().String()).To(Equal(tc.cpu))
		})
	}
}

func TestBrokerOfferPublishesTheBrokeredLabel(t *testing.T) {
	for _, tc := range []struct {
		name  string
		offer *sharingv1alpha1.ResourceOffer
		want  map[string]string
	}{
		{name: "a broker's offer says so", offer: newOffer("rome", asBroker, withLabels(map[string]string{"tier": "gold"})),
			want: map[string]string{"tier": "gold", virtualkubeletv1alpha1.BrokeredLabel: "true"}},
		{name: "git cannot unsay it", offer: newOffer("rome", asBroker, withLabels(map[string]string{virtualkubeletv1alpha1.BrokeredLabel: "false"})),
			want: map[string]string{virtualkubeletv1alpha1.BrokeredLabel: "true"}},
		{name: "a plain offer cannot claim it", offer: newOffer("rome", withLabels(map[string]string{virtualkubeletv1alpha1.BrokeredLabel: "true"})),
			want: map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			before := tc.offer.DeepCopy()
			data, err := offerConfigMapData(providerID, providerName, tc.offer, rl("cpu", "1"), nil)
			g.Expect(err).NotTo(HaveOccurred())
			var labels map[string]string
			g.Expect(json.Unmarshal([]byte(data[sharingv1alpha1.OfferLabelsKey]), &labels)).To(Succeed())
			g.Expect(labels).To(Equal(tc.want))
			g.Expect(tc.offer.Spec).To(Equal(before.Spec), "the spec is never written")
		})
	}
}
