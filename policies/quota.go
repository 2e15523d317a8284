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

package policies

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// DefaultOfferedPods is how many pods an offer admits when it does not say:
// a fixed offer without "pods" in spec.resources.limits gets what a node
// gets by default (kubelet's maxPods), so that no offer admits unlimited pods.
// A percentage offer always carries pods (its share of the nodes' pods).
const DefaultOfferedPods = 110

// PodRequests is what a pod spec takes from an offer, counted as the
// scheduler and ResourceQuota count it once the API server has defaulted the
// pod: a container's request defaults to its limit when only the limit is
// set, init containers count as max(largest init container, sum of the
// containers and sidecars), plus the pod overhead; and one pod. A ShadowPod
// is a custom resource, so its spec.pod is never defaulted: counting it raw
// would let limits-only containers run for free.
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	pod := &corev1.Pod{Spec: *spec.DeepCopy()}
	defaultRequestsFromLimits(pod.Spec.InitContainers)
	defaultRequestsFromLimits(pod.Spec.Containers)
	out := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	for name, q := range out {
		if q.Sign() < 0 {
			// Negative requests are invalid and the API server refuses the pod; never let them lower a sum.
			out[name] = *resource.NewQuantity(0, q.Format)
		}
	}
	out[corev1.ResourcePods] = *resource.NewQuantity(1, resource.DecimalSI)
	return out
}

// defaultRequestsFromLimits does what the API server's defaulting does to a
// pod: every resource with a limit and no request requests its limit.
func defaultRequestsFromLimits(containers []corev1.Container) {
	for i := range containers {
		r := &containers[i].Resources
		for name, limit := range r.Limits {
			if _, ok := r.Requests[name]; ok {
				continue
			}
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			r.Requests[name] = limit.DeepCopy()
		}
	}
}

// OfferLimits is what admission holds a consumer to: the offered amounts,
// and DefaultOfferedPods pods when the offer names no pod count.
func OfferLimits(offered corev1.ResourceList) corev1.ResourceList {
	out := make(corev1.ResourceList, len(offered)+1)
	for name, q := range offered {
		out[name] = q.DeepCopy()
	}
	if _, ok := out[corev1.ResourcePods]; !ok {
		out[corev1.ResourcePods] = *resource.NewQuantity(DefaultOfferedPods, resource.DecimalSI)
	}
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
