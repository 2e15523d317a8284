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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// kubectl get resourceoffers reads status.offeredDisplay: the offer as people
// read it, next to the exact status.offered.
func TestApplyStatusWritesTheOfferForPeople(t *testing.T) {
	g := NewWithT(t)
	offer := newOffer("rome")
	applyStatus(offer, newObservation(func(o *observation) {
		o.offered = corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse("15300m"),
			corev1.ResourceMemory: resource.MustParse("61847529062"),
			"nvidia.com/gpu":      resource.MustParse("1"),
		}
	}))
	g.Expect(offer.Status.OfferedDisplay).To(Equal(map[corev1.ResourceName]string{
		corev1.ResourceCPU: "15.3", corev1.ResourceMemory: "57.6Gi", "nvidia.com/gpu": "1",
	}))
	g.Expect(offer.Status.Offered.Memory().Value()).To(BeEquivalentTo(61847529062), "the exact amount stays")

	applyStatus(offer, newObservation(withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "x"})))
	g.Expect(offer.Status.OfferedDisplay).To(BeNil(), "nothing is offered while another consumer holds the tenant")
}
