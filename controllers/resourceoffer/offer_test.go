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
)

func TestOfferedResources(t *testing.T) {
	nodes := []corev1.Node{*newNode("n1", rl("cpu", "8", "memory", "32Gi", "pods", "110", "nvidia.com/gpu", "1"))}
	pods := []corev1.Pod{
		*newPod("default", "web", "n1", rl("cpu", "2"), nil),
		*newPod("liqo-tenant-rome", "offloaded", "n1", rl("cpu", "1"), map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}),
		*newPod("liqo-tenant-paris", "other-consumer", "n1", rl("cpu", "2"), map[string]string{sharingv1alpha1.OriginClusterIDLabel: "paris-id"}),
	}
	for _, tc := range []struct {
		name    string
		offer   *sharingv1alpha1.ResourceOffer
		cpu     string
		gpu     string
		zeroed  []corev1.ResourceName
		exactly corev1.ResourceList
	}{
		// free cpu for rome: 8 - 2 (web) - 2 (paris) = 4; rome's own pod is not subtracted.
		{name: "default percentage is 90", offer: newOffer("rome"), cpu: "3600m", gpu: "0", zeroed: []corev1.ResourceName{"nvidia.com/gpu"}},
		{name: "50 percent", offer: newOffer("rome", withPercentage(50)), cpu: "2", gpu: "0", zeroed: []corev1.ResourceName{"nvidia.com/gpu"}},
		{name: "100 percent keeps the GPU", offer: newOffer("rome", withPercentage(100)), cpu: "4", gpu: "1"},
		// for paris: 8 - 2 (web) - 1 (rome) = 5.
		{name: "another consumer's pods count against this one", offer: newOffer("paris", withPercentage(100)), cpu: "5", gpu: "1"},
		{name: "fixed limits verbatim", offer: newOffer("rome", withLimits(rl("cpu", "100", "nvidia.com/gpu", "4"))),
			exactly: rl("cpu", "100", "nvidia.com/gpu", "4")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			offered, zeroed := offeredResources(tc.offer, nodes, usedBy(pods, tc.offer.Spec.ClusterID))
			if tc.exactly != nil {
				g.Expect(offered).To(Equal(tc.exactly))
				g.Expect(zeroed).To(BeEmpty())
				return
			}
			g.Expect(offered.Cpu().String()).To(Equal(tc.cpu))
			gpu := offered[corev1.ResourceName("nvidia.com/gpu")]
			g.Expect(gpu.String()).To(Equal(tc.gpu))
			names := make([]corev1.ResourceName, 0, len(zeroed))
			for _, z := range zeroed {
				names = append(names, z.Name)
			}
			g.Expect(names).To(ConsistOf(tc.zeroed))
		})
	}
}

func TestOfferedResourcesDoesNotAliasTheSpec(t *testing.T) {
	g := NewWithT(t)
	offer := newOffer("rome", withLimits(rl("cpu", "4")))
	offered, _ := offeredResources(offer, nil, nil)
	offered[corev1.ResourceCPU] = rl("cpu", "1")[corev1.ResourceCPU]
	g.Expect(offer.Spec.Resources.Limits.Cpu().String()).To(Equal("4"))
}

func TestOfferConfigMapData(t *testing.T) {
	for _, tc := range []struct {
		name   string
		offer  *sharingv1alpha1.ResourceOffer
		labels map[string]string
	}{
		{name: "with labels", offer: newOffer("rome", withLabels(map[string]string{sharingv1alpha1.TopologyRegionLabel: "north"})),
			labels: map[string]string{sharingv1alpha1.TopologyRegionLabel: "north"}},
		{name: "without labels", offer: newOffer("rome"), labels: map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			data, err := offerConfigMapData(providerID, providerName, tc.offer, rl("cpu", "7200m"), nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(data).To(HaveKeyWithValue(sharingv1alpha1.OfferProviderClusterIDKey, providerID))
			g.Expect(data).To(HaveKeyWithValue(sharingv1alpha1.OfferProviderClusterNameKey, providerName))
			g.Expect(data).To(HaveKeyWithValue(sharingv1alpha1.OfferConsumerClusterIDKey, "rome-id"))
			g.Expect(data).To(HaveKeyWithValue(sharingv1alpha1.OfferReadyKey, "true"))
			g.Expect(data[sharingv1alpha1.OfferResourcesKey]).To(MatchJSON(`{"cpu":"7200m"}`))
			var labels map[string]string
			g.Expect(json.Unmarshal([]byte(data[sharingv1alpha1.OfferLabelsKey]), &labels)).To(Succeed())
			g.Expect(labels).To(Equal(tc.labels))
		})
	}
}

func TestOfferConfigMapDataPublishesTheStorageClasses(t *testing.T) {
	g := NewWithT(t)
	offer := newOffer("rome")
	offer.Spec.StorageClassName = "fast"
	offer.Spec.ExternalStorageClasses = []string{"remote-disk", "archive"}
	data, err := offerConfigMapData(providerID, providerName, offer, rl("cpu", "1"), nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(data).To(HaveKeyWithValue(sharingv1alpha1.OfferStorageClassKey, "fast"))
	g.Expect(data[sharingv1alpha1.OfferExternalStorageClassesKey]).To(MatchJSON(`["remote-disk","archive"]`))

	data, err = offerConfigMapData(providerID, providerName, newOffer("rome"), rl("cpu", "1"), nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(data).NotTo(HaveKey(sharingv1alpha1.OfferExternalStorageClassesKey), "no external classes: the key is absent")
}
