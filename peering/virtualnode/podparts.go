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

package virtualnode

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// podParts keeps one copy of each spec part that many pods carry
// identically, for the manager's pod informer (PodVersions). An offloaded
// pod's required affinity to virtual nodes and its tolerations are what the
// pod webhook sets on every pod it places, and most pods' security context
// is empty; each was decoded anew for every pod. At 10,000 offloaded pods
// the affinities alone held 7 MB of rome's manager's heap, the tolerations
// and security contexts 6 MB more (issue 17, target 3, lever 28).
//
// A part whose protobuf encoding equals, byte for byte, that of a part held
// already is replaced by the held one, so equal means identical, not merely
// equivalent. Shared parts are read-only like everything an informer holds:
// nothing may modify a cached object (virtual-kubelet and the pod handler
// copy before they write).
//
// The table is bounded: when it holds maxPodParts parts it starts over, so a
// cluster whose pods all differ costs a bounded table and the encodings, and
// parts still in use stay with the pods that hold them.
type podParts struct {
	mu    sync.Mutex
	parts map[string]any
}

// maxPodParts bounds the table: far more distinct affinities, toleration
// lists and security contexts than a cluster's pod templates carry.
const maxPodParts = 4096

// share replaces spec's affinity, tolerations and security context by the
// held ones of the same encoding, and holds those it has no copy of yet.
// spec must not yet be visible to any reader.
func (pp *podParts) share(spec *corev1.PodSpec) {
	if spec.Affinity != nil {
		if data, err := spec.Affinity.Marshal(); err == nil {
			spec.Affinity = pp.held("affinity\x00"+string(data), spec.Affinity).(*corev1.Affinity)
		}
	}
	if len(spec.Tolerations) > 0 {
		// The tolerations alone, encoded as a spec that holds nothing else.
		if data, err := (&corev1.PodSpec{Tolerations: spec.Tolerations}).Marshal(); err == nil {
			spec.Tolerations = pp.held("tolerations\x00"+string(data), spec.Tolerations).([]corev1.Toleration)
		}
	}
	if spec.SecurityContext != nil {
		if data, err := spec.SecurityContext.Marshal(); err == nil {
			spec.SecurityContext = pp.held("securityContext\x00"+string(data), spec.SecurityContext).(*corev1.PodSecurityContext)
		}
	}
}

// held returns the part held under key, holding part there when there is
// none.
func (pp *podParts) held(key string, part any) any {
	pp.mu.Lock()
	defer pp.mu.Unlock()
	if got, ok := pp.parts[key]; ok {
		return got
	}
	if pp.parts == nil || len(pp.parts) >= maxPodParts {
		pp.parts = map[string]any{}
	}
	pp.parts[key] = part
	return part
}
