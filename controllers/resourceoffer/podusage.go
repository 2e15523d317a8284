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
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// podUsage is what this cluster's pods hold of each node, per origin cluster
// (the consumer that offloaded them, "" for the provider's own pods), kept
// from the pod informer's events. A percentage offer reads it instead of
// listing every pod on each pass: at 10,000 pods the list and its deep copy
// were 6.6 s of the provider manager's 59.5 s (docs/performance.md). The
// origin is kept apart because an offer leaves its own consumer's pods out
// (offeredResources). The zero value is empty and ready to use.
type podUsage struct {
	mu sync.RWMutex
	// parts holds what each counted pod (by namespace/name) adds; a pod that
	// holds nothing (unbound, done) is not in it.
	parts map[string]podPart
	// byNode sums parts: node name → origin → usage.
	byNode map[string]map[string]*policies.NodeUsage
}

// podPart is one pod's contribution to byNode.
type podPart struct {
	node, origin string
	requests     corev1.ResourceList
}

func (p podPart) equal(o podPart) bool {
	return p.node == o.node && p.origin == o.origin && equality.Semantic.DeepEqual(p.requests, o.requests)
}

// partOf is what pod adds, by policies.PodHold; ok is false if it holds nothing.
func partOf(pod *corev1.Pod) (podPart, bool) {
	node, requests, holds := policies.PodHold(pod)
	if !holds {
		return podPart{}, false
	}
	return podPart{node: node, origin: pod.Labels[sharingv1alpha1.OriginClusterIDLabel], requests: requests}, true
}

// observe records pod, whose informer key is key, as it is now (an add or an
// update) and returns the origins whose usage changed: none for an update
// that changes nothing an offer counts (a status heartbeat, Running).
func (u *podUsage) observe(key string, pod *corev1.Pod) []string {
	part, holds := partOf(pod)
	u.mu.Lock()
	defer u.mu.Unlock()
	old, had := u.parts[key]
	switch {
	case !had && !holds:
		return nil
	case had && holds && old.equal(part):
		return nil
	}
	var changed []string
	if had {
		u.removeLocked(key, old)
		changed = append(changed, old.origin)
	}
	if holds {
		u.addLocked(key, part)
		if !had || old.origin != part.origin {
			changed = append(changed, part.origin)
		}
	}
	return changed
}

// forget removes the pod of key (a deletion) and returns the origin whose
// usage changed, if the pod held anything.
func (u *podUsage) forget(key string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	old, had := u.parts[key]
	if !had {
		return nil
	}
	u.removeLocked(key, old)
	return []string{old.origin}
}

func (u *podUsage) addLocked(key string, part podPart) {
	if u.parts == nil {
		u.parts, u.byNode = map[string]podPart{}, map[string]map[string]*policies.NodeUsage{}
	}
	u.parts[key] = part
	origins := u.byNode[part.node]
	if origins == nil {
		origins = map[string]*policies.NodeUsage{}
		u.byNode[part.node] = origins
	}
	sum := origins[part.origin]
	if sum == nil {
		sum = &policies.NodeUsage{}
		origins[part.origin] = sum
	}
	sum.Add(part.requests)
}

func (u *podUsage) removeLocked(key string, part podPart) {
	delete(u.parts, key)
	origins := u.byNode[part.node]
	sum := origins[part.origin]
	sum.Remove(part.requests)
	if sum.Pods == 0 {
		delete(origins, part.origin)
	}
	if len(origins) == 0 {
		delete(u.byNode, part.node)
	}
}

// except is the usage per node of every origin but consumerID: what an offer
// to consumerID subtracts. The sums are copies the caller may keep.
func (u *podUsage) except(consumerID string) map[string]policies.NodeUsage {
	u.mu.RLock()
	defer u.mu.RUnlock()
	out := make(map[string]policies.NodeUsage, len(u.byNode))
	for node, origins := range u.byNode {
		var total policies.NodeUsage
		for origin, sum := range origins {
			if origin == consumerID {
				continue
			}
			if total.Requests == nil {
				total.Requests = corev1.ResourceList{}
			}
			policies.AddRequests(total.Requests, sum.Requests.DeepCopy())
			total.Pods += sum.Pods
		}
		if total.Pods > 0 {
			out[node] = total
		}
	}
	return out
}
