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

package serviceaccount

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// serviceAccountsInUse counts, per ServiceAccount, the node's pods that
// mount its token. The pod informer's handler sees every pod's events in
// order, each update with the state it replaces, so applying the difference
// of each event keeps the counts exact without ever listing the pods.
type serviceAccountsInUse struct {
	mu     sync.Mutex
	counts map[types.NamespacedName]int
}

// track applies one pod event (old nil for an add, updated nil for a
// delete) and tells whether the set of ServiceAccounts in use may have
// changed, which is when the reflector wakes (see wakes).
func (u *serviceAccountsInUse) track(node string, old, updated *corev1.Pod) bool {
	if !wakes(node, old, updated) {
		return false
	}
	before, hadOne := tokenNeededBy(node, old)
	after, hasOne := tokenNeededBy(node, updated)
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.counts == nil {
		u.counts = map[types.NamespacedName]int{}
	}
	if hadOne {
		if u.counts[before]--; u.counts[before] <= 0 {
			delete(u.counts, before)
		}
	}
	if hasOne {
		u.counts[after]++
	}
	return true
}

// set is the ServiceAccounts at least one of the node's pods mounts.
func (u *serviceAccountsInUse) set() map[types.NamespacedName]bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make(map[types.NamespacedName]bool, len(u.counts))
	for sa := range u.counts {
		out[sa] = true
	}
	return out
}
