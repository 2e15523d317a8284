package policies

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// PodRequests is what a pod spec takes from an offer: its requests as the
// scheduler counts them (containers, init containers, overhead) and one pod.
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	out := resourcehelper.PodRequests(&corev1.Pod{Spec: *spec}, resourcehelper.PodResourcesOptions{})
	out[corev1.ResourcePods] = *resource.NewQuantity(1, resource.DecimalSI)
	return out
}

// AddRequests adds b into a.
func AddRequests(a, b corev1.ResourceList) {
	for name, q := range b {
		sum := a[name]
		sum.Add(q)
		a[name] = sum
	}
}

// MissingFromOffer returns, per resource, how much used+request exceeds the
// offer. A resource the offer does not list is unlimited if it is a
// Kubernetes one (a provider rarely offers ephemeral storage) and not offered
// at all if it is an extended resource (a GPU that was not offered).
func MissingFromOffer(offer, used, request corev1.ResourceList) corev1.ResourceList {
	missing := corev1.ResourceList{}
	for name, q := range request {
		if q.IsZero() {
			continue
		}
		limit, offered := offer[name]
		if !offered && !isExtended(name) {
			continue
		}
		total := used[name].DeepCopy()
		total.Add(q)
		if total.Cmp(limit) > 0 {
			total.Sub(limit)
			missing[name] = total
		}
	}
	return missing
}

// DescribeResources prints a resource list as "cpu 500m, memory 1Gi", sorted.
func DescribeResources(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for name, q := range l {
		parts = append(parts, fmt.Sprintf("%s %s", name, q.String()))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func isExtended(name corev1.ResourceName) bool {
	return strings.Contains(string(name), "/") && !strings.HasPrefix(string(name), corev1.ResourceDefaultNamespacePrefix)
}
