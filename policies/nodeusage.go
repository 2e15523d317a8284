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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"
)

// NodeUsage is what the pods bound to one node hold of it: the sum of their
// requests and how many they are. FreeAllocatableUsing reads it in place of
// the pods themselves, so an offer costs O(nodes), not O(pods).
type NodeUsage struct {
	Requests corev1.ResourceList
	Pods     int64
}

// PodHold is what p holds of its node as FreeAllocatable counts it: its
// requests (resourcehelper.PodRequests: init containers, sidecars, overhead)
// on spec.nodeName, unless it is unbound or done. A pod being deleted still
// holds its node until it is gone, as in FreeAllocatable.
func PodHold(p *corev1.Pod) (node string, requests corev1.ResourceList, holds bool) {
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return "", nil, false
	}
	return p.Spec.NodeName, resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}), true
}

// UsageByNode sums what pods hold of each node, by PodHold.
func UsageByNode(pods []corev1.Pod) map[string]NodeUsage {
	used := map[string]NodeUsage{}
	for i := range pods {
		node, requests, holds := PodHold(&pods[i])
		if !holds {
			continue
		}
		u := used[node]
		u.Add(requests)
		used[node] = u
	}
	return used
}

// Add counts one more pod holding requests.
func (u *NodeUsage) Add(requests corev1.ResourceList) {
	if u.Requests == nil {
		u.Requests = corev1.ResourceList{}
	}
	AddRequests(u.Requests, requests)
	u.Pods++
}

// Remove takes back what Add counted for a pod holding requests.
func (u *NodeUsage) Remove(requests corev1.ResourceList) {
	for name, q := range requests {
		left := u.Requests[name]
		left.Sub(q)
		if left.IsZero() {
			delete(u.Requests, name)
		} else {
			u.Requests[name] = left
		}
	}
	u.Pods--
}

// FreeAllocatableUsing is FreeAllocatable with the pods already summed per
// node (used, by node name).
func FreeAllocatableUsing(nodes []corev1.Node, used map[string]NodeUsage) corev1.ResourceList {
	return freeOnUsing(nodes, used, physicalNodeCounts)
}

// ResellableFreeUsing is ResellableFree with the pods already summed per node.
func ResellableFreeUsing(nodes []corev1.Node, used map[string]NodeUsage, consumerID string) corev1.ResourceList {
	return freeOnUsing(nodes, used, func(n *corev1.Node) bool { return resellable(n, consumerID) })
}

// freeOnUsing sums the allocatable of the nodes counts accepts, subtracts
// what the pods on each of them hold (their requests and a pod slot each),
// and floors the result at zero.
func freeOnUsing(nodes []corev1.Node, used map[string]NodeUsage, counts func(*corev1.Node) bool) corev1.ResourceList {
	free, counted := allocatableOf(nodes, counts)
	for name := range counted {
		u, ok := used[name]
		if !ok {
			continue
		}
		for res, q := range u.Requests {
			if sum, ok := free[res]; ok {
				sum.Sub(q)
				free[res] = sum
			}
		}
		if sum, ok := free[corev1.ResourcePods]; ok {
			sum.Sub(*resource.NewQuantity(u.Pods, resource.DecimalSI))
			free[corev1.ResourcePods] = sum
		}
	}
	floorAtZero(free)
	return free
}
