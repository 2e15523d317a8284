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
	corev1 "k8s.io/api/core/v1"
)

// statusReport is the pod the handler hands virtual-kubelet for a status
// change: p's metadata and status, no spec. virtual-kubelet (v1.13.0,
// node/pod.go and node/podcontroller.go) keeps the last report of every pod
// for as long as the pod lives, and reads from it only the name and
// namespace (its key), the deletion timestamp and grace period, the labels,
// annotations and finalizers (compared with the local pod's) and the status,
// which it sends with UpdateStatus. The API server takes the spec of a
// pods/status write from the stored pod, never from the request
// (podStatusStrategy.PrepareForUpdate), so the spec, the larger part of a
// pod, is left out of what virtual-kubelet keeps (issue 17, lever 6).
//
// The metadata stays whole: pods/status writes labels, annotations and
// finalizers as sent, so a report without them would erase the local pod's.
// The result shares p's maps and slices; virtual-kubelet copies what it keeps.
func statusReport(p *corev1.Pod) *corev1.Pod {
	return &corev1.Pod{TypeMeta: p.TypeMeta, ObjectMeta: p.ObjectMeta, Status: p.Status}
}

// withoutSpec is a copy of pod's metadata and status: what the handler keeps
// of every local pod it runs (Handler.remember). The spec is read where it is
// used, from the pod virtual-kubelet passes (CreatePod, UpdatePod) or the
// manager's cache (the resync, GetPod). The handler's whole copy of every
// pod was 37 MB of the manager's heap at 10,000 pods (issue 17, lever 6).
func withoutSpec(pod *corev1.Pod) *corev1.Pod {
	out := &corev1.Pod{TypeMeta: pod.TypeMeta}
	pod.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.ManagedFields = nil
	pod.Status.DeepCopyInto(&out.Status)
	return out
}

// remotePodFootprint is the TwinWatcher's transform: a provider's pod is kept
// with its metadata and status, without managed fields or spec. What reads
// the kept pods reads no more (issue 17, target 3): LocalStatus the status
// and the recreations annotation, the adoption checks the local pod's UID
// annotation, the views (localView) the name, labels and annotations, and
// DeletePod and the resync whether the pod exists. The one reader of the
// spec was localView's view of a pod the handler does not remember (after a
// restart, until virtual-kubelet's first sync of it), which showed the
// provider's spec: virtual-kubelet compared it with the local pod only to
// decide on UpdatePod, which it calls anyway for such a view (its
// annotations, the provider's, always differ from the local pod's).
// The TwinWatcher held every provider pod whole, next to the manager's
// cached local pod: two decoded pods per offloaded pod.
//
// The decoded pod is the informer's own, so it is trimmed in place; a
// tombstone passes unchanged.
func remotePodFootprint(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		p.ManagedFields = nil
		p.Spec = corev1.PodSpec{}
	}
	return obj, nil
}
