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

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// podsIn returns the local pods of namespace ns as the cache holds them,
// for a resync pass to read and never modify.
//
// With PodIndex they are the informer's own objects, read through its
// namespace index. A List, even with UnsafeDisableDeepCopy, copies each
// pod's struct into the list's slice: 1.2 KB a pod, 11 MB per pass over
// 10,000 pods, and a heap profile of the manager caught two such lists
// live at once (issue 17, lever 23). The pointers share the spec and the
// maps with the cache either way, so the copies bought no safety.
func (h *Handler) podsIn(ctx context.Context, cache client.Reader, ns string) ([]*corev1.Pod, error) {
	if h.PodIndex != nil {
		// controller-runtime's informers all carry the namespace index; one
		// without it is read through the cache as before.
		if objs, err := h.PodIndex.ByIndex(toolscache.NamespaceIndex, ns); err == nil {
			return podsAmong(objs), nil
		}
	}
	list := &corev1.PodList{}
	if err := cache.List(ctx, list, client.InNamespace(ns), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	out := make([]*corev1.Pod, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}

// podsAmong keeps the pods of an index's objects.
func podsAmong(objs []any) []*corev1.Pod {
	out := make([]*corev1.Pod, 0, len(objs))
	for _, o := range objs {
		if p, ok := o.(*corev1.Pod); ok {
			out = append(out, p)
		}
	}
	return out
}
