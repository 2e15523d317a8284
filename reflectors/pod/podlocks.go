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

package pod

import "hash/fnv"

// lockPod takes the lock of the pod namespace/name (see podLocks) and
// returns its release.
func (h *Handler) lockPod(namespace, name string) func() {
	f := fnv.New32a()
	_, _ = f.Write([]byte(key(namespace, name)))
	m := &h.podLocks[f.Sum32()%uint32(len(h.podLocks))]
	if !m.TryLock() {
		if h.contended != nil {
			h.contended()
		}
		m.Lock()
	}
	return m.Unlock
}
