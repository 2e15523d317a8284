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
