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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// keptPod is what the handler keeps of a local pod it runs
// (Handler.remember): the metadata the status reports are built on
// (localView, reportGone) and the local PodScheduled condition
// (keepLocalScheduling). The spec is read where it is used, from the pod
// virtual-kubelet passes (CreatePod, UpdatePod) or the manager's cache (the
// resync, GetPod). The rest of the local status is kept only while the pod
// is being deleted, for the report that releases it (reportGone); otherwise
// every report replaces it with the provider's.
//
// Its maps and slices are shared with the pod it was taken from when that
// pod is the cache's own object (see Handler.cachedVersion), which nothing
// may modify; the pod's struct and spec are not held. Kept as a local pod
// without its spec, it cost 2.4 KB per pod; the handler's whole copy of
// every pod was 37 MB of the manager's heap at 10,000 pods (issue 17,
// levers 6 and 24).
type keptPod struct {
	metav1.ObjectMeta
	// scheduled is the local PodScheduled condition; zero when it has none.
	scheduled corev1.PodCondition
	// status is the local pod's whole status, kept only when it is being
	// deleted.
	status *corev1.PodStatus
}

// keepPod is what the handler keeps of pod. shared says pod is the cache's own
// object, whose maps and slices are read-only and outlive this version
// (virtualnode.PodVersions passes them on to the next); otherwise they are
// copied, since the caller's pod may be modified after.
func keepPod(pod *corev1.Pod, shared bool) *keptPod {
	k := &keptPod{ObjectMeta: pod.ObjectMeta}
	if !shared {
		pod.ObjectMeta.DeepCopyInto(&k.ObjectMeta)
	}
	k.ManagedFields = nil
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodScheduled {
			k.scheduled = pod.Status.Conditions[i]
		}
	}
	if !pod.DeletionTimestamp.IsZero() {
		k.status = pod.Status.DeepCopy()
	}
	return k
}

// pod is a local pod made of what was kept: its metadata, and its status
// when it is being deleted. It shares nothing with k.
func (k *keptPod) pod() *corev1.Pod {
	out := &corev1.Pod{}
	k.DeepCopyInto(&out.ObjectMeta) // the embedded ObjectMeta's method
	if k.status != nil {
		k.status.DeepCopyInto(&out.Status)
	}
	return out
}

// remember keeps the local pod's metadata and scheduling for as long as it
// runs here: the status reports are built on them (localView, reportGone).
// Not its spec, which nothing here reads after the ShadowPod is written, nor
// the rest of its status but while it is being deleted (see keptPod).
//
// A copy without a deletion never replaces one with it for the same pod: a
// deletion is not undone, so such a copy is older (a resync pass's
// snapshot), and reportGone, which releases the local pod only when the
// remembered copy is being deleted, would otherwise leave it Terminating
// for its whole grace period.
func (h *Handler) remember(pod *corev1.Pod) {
	src, shared := h.cachedVersion(pod)
	kept := keepPod(src, shared)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.local == nil {
		h.local = map[string]*keptPod{}
	}
	k := key(pod.Namespace, pod.Name)
	if old := h.local[k]; old != nil && old.UID == kept.UID && !old.DeletionTimestamp.IsZero() && kept.DeletionTimestamp.IsZero() {
		return
	}
	h.local[k] = kept
}

// cachedVersion is the informer's own object for pod when PodIndex holds
// this very version of it (same UID and resourceVersion), and whether it is:
// what remember keeps then shares the cache's maps instead of copying them.
// virtual-kubelet hands CreatePod and UpdatePod copies of its own, and
// DeletePod a copy of the informer's object or of GetPod's view; the resync
// passes the informer's objects.
func (h *Handler) cachedVersion(pod *corev1.Pod) (*corev1.Pod, bool) {
	if h.PodIndex == nil {
		return pod, false
	}
	obj, found, err := h.PodIndex.GetByKey(key(pod.Namespace, pod.Name))
	if err != nil || !found {
		return pod, false
	}
	cached, ok := obj.(*corev1.Pod)
	if !ok || cached.UID != pod.UID || cached.ResourceVersion != pod.ResourceVersion {
		return pod, false
	}
	return cached, true
}

func (h *Handler) remembered(ns, name string) *keptPod {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.local[key(ns, name)]
}

// providerPod is what the TwinWatcher keeps of a provider's pod: its
// metadata and status, which is all its readers read (see
// remotePodFootprint). It is a type of its own rather than a *corev1.Pod with
// an empty spec because the struct of a pod is most of what an empty spec
// leaves: 1,192 bytes (a 1,280-byte allocation) for the pod, 592 (640) for
// the metadata and status, so 6.4 MB less at 10,000 offloaded pods (issue 17,
// lever 29).
//
// It is a runtime.Object with its metadata embedded, which is what the
// informer's store and queue need of what the transform returns: its key
// (meta.Accessor), the namespace index, and a deep copy for the cache
// mutation detector. Nothing in client-go checks the type of an object after
// the transform (the reflector checks the decoded pod, before it).
type providerPod struct {
	metav1.ObjectMeta
	Status corev1.PodStatus
}

// keepProviderPod is what the TwinWatcher keeps of p, without its managed
// fields. It shares p's maps and slices rather than copying them: in the
// transform p is the informer's freshly decoded pod, which nothing else
// holds, and p's struct and spec are then garbage.
func keepProviderPod(p *corev1.Pod) *providerPod {
	out := &providerPod{ObjectMeta: p.ObjectMeta, Status: p.Status}
	out.ManagedFields = nil
	return out
}

// GetObjectKind is empty: the informer's objects carry no kind, as the
// decoded pods' did not either.
func (p *providerPod) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject makes providerPod a runtime.Object.
func (p *providerPod) DeepCopyObject() runtime.Object { return p.DeepCopy() }

// DeepCopyInto copies p whole into out. It and DeepCopy hide the embedded
// ObjectMeta's, which would copy only the metadata.
func (p *providerPod) DeepCopyInto(out *providerPod) {
	p.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	p.Status.DeepCopyInto(&out.Status)
}

// DeepCopy copies p whole.
func (p *providerPod) DeepCopy() *providerPod {
	if p == nil {
		return nil
	}
	out := &providerPod{}
	p.DeepCopyInto(out)
	return out
}

// remotePodFootprint is the TwinWatcher's transform: a provider's pod is kept
// as its metadata and status (providerPod), without managed fields or spec.
// What reads the kept pods reads no more (issue 17, target 3): LocalStatus
// the status, Recreations the recreations annotation, the adoption checks
// (adoption, staleForLocal) the local pod's UID annotation, the views
// (localView) the name, labels and annotations, and DeletePod and the resync
// whether the pod exists. The one reader of the spec was localView's view of
// a pod the handler does not remember (after a restart, until
// virtual-kubelet's first sync of it), which showed the provider's spec:
// virtual-kubelet compared it with the local pod only to decide on
// UpdatePod, which it calls anyway for such a view (its annotations, the
// provider's, always differ from the local pod's). The TwinWatcher held every
// provider pod whole, next to the manager's cached local pod: two decoded
// pods per offloaded pod; then a pod with an empty spec, whose struct alone
// still cost 1,280 bytes (lever 29, see providerPod).
//
// A tombstone passes unchanged, and so does a providerPod: the reflector's
// watch-list path transforms what it streams into a temporary store, then
// hands that store's objects to the queue's Replace, which transforms them
// again.
func remotePodFootprint(obj any) (any, error) {
	if p, ok := obj.(*corev1.Pod); ok {
		return keepProviderPod(p), nil
	}
	return obj, nil
}
