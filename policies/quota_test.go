package policies

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func TestMissingFromOffer(t *testing.T) {
	g := NewWithT(t)
	offer := list("cpu", "4", "memory", "8Gi", "pods", "10")
	g.Expect(MissingFromOffer(offer, list("cpu", "3"), list("cpu", "1", "pods", "1"))).To(BeEmpty(), "exactly the offer fits")
	missing := MissingFromOffer(offer, list("cpu", "3500m"), list("cpu", "1", "memory", "1Gi"))
	g.Expect(DescribeResources(missing)).To(Equal("cpu 500m"))
	g.Expect(DescribeResources(MissingFromOffer(offer, nil, list("nvidia.com/gpu", "1")))).To(Equal("nvidia.com/gpu 1"),
		"an extended resource that was not offered is not there to take")
	g.Expect(MissingFromOffer(offer, nil, list("ephemeral-storage", "1Gi"))).To(BeEmpty(), "a Kubernetes resource the offer leaves out is not limited")
}

func TestPodRequestsCountsInitContainersAndOnePod(t *testing.T) {
	g := NewWithT(t)
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}}},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "1Gi")}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m")}},
		},
	}
	g.Expect(DescribeResources(PodRequests(spec))).To(Equal("cpu 2, memory 1Gi, pods 1"))
}
