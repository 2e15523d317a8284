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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// deletePodPatience bounds how long the resync leaves to DeletePod the
// ShadowPod of a pod whose deletion the informer delivered. In a mass
// deletion virtual-kubelet's queue reaches the last pods minutes later (two
// provider requests per pod at the remote client's QPS: about 200 s for
// 10,000 pods); past this bound the resync deletes it itself.
const deletePodPatience = 5 * time.Minute

// localDeletion is a deletion of a local pod the informer delivered: which
// pod (UID), when it was seen, and whether DeletePod has since sent the
// DELETE of its ShadowPod.
type localDeletion struct {
	uid  types.UID
	at   time.Time
	sent bool
}

// LocalPodDeleted records that the informer virtual-kubelet works from
// delivered the deletion of pod, a pod bound to this node. virtual-kubelet
// gets the same event and calls DeletePod for it once its queue reaches it;
// until then the resync leaves the pod's ShadowPod to DeletePod instead of
// confirming the deletion with the local API server and deleting the
// ShadowPod too (issue 17: 0.76 local GETs and 0.25 second DELETEs per pod
// when 10,000 pods were deleted at once). Only an event with the pod itself
// counts: virtual-kubelet ignores a tombstone (a deletion the informer
// inferred from a relist), so DeletePod would never come.
func (h *Handler) LocalPodDeleted(pod *corev1.Pod) {
	if pod.Spec.NodeName != h.nodeName() || pod.UID == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.deletedLocally == nil {
		h.deletedLocally = map[string]localDeletion{}
	}
	h.deletedLocally[key(pod.Namespace, pod.Name)] = localDeletion{uid: pod.UID, at: time.Now()}
}

// noteDeletePod records that virtual-kubelet is working through deletions.
func (h *Handler) noteDeletePod() {
	h.mu.Lock()
	h.lastDeletePod = time.Now()
	h.mu.Unlock()
}

// noteDeleteSentLocked records, on the deletion seen of pod, that DeletePod is
// sending its ShadowPod's DELETE. Unlike deleting, which reportGone clears
// as soon as the provider's pod is gone, the record outlives the DELETE: a
// pass working from a list taken before it still finds the ShadowPod.
// Called with h.mu held.
func (h *Handler) noteDeleteSentLocked(pod *corev1.Pod) {
	k := key(pod.Namespace, pod.Name)
	if d, ok := h.deletedLocally[k]; ok && d.uid == pod.UID {
		d.sent = true
		h.deletedLocally[k] = d
	}
}

// orphanAction is what the resync does with a ShadowPod whose local pod the
// cache misses and whose DELETE DeletePod has not sent.
type orphanAction int

const (
	// confirmOrphan: no deletion of its pod was seen (the manager restarted,
	// the event was missed): delete it once a second pass finds it and the
	// local API server confirms the pod is gone.
	confirmOrphan orphanAction = iota
	// leaveToDeletePod: the informer delivered its pod's deletion and
	// virtual-kubelet is still working through its queue.
	leaveToDeletePod
	// deleteWatchedOrphan: the informer delivered its pod's deletion, but
	// DeletePod did not come: delete it without asking the local API server,
	// since the watch already said that very pod (UID) is gone.
	deleteWatchedOrphan
)

// orphanDecision decides for such a ShadowPod from whether the deletion of
// its pod was seen, whether DeletePod sent its DELETE, how long ago the
// deletion was seen, how long since DeletePod was last called (never, for
// a pod DeletePod will not be called for: see noProviderPod), and the
// resync's interval. A deletion DeletePod handled is its own (it retries
// until the DELETE is sent); one seen less than an interval ago is
// virtual-kubelet's to deliver; an older one too while DeletePod is still
// being called (its queue drains in order), up to deletePodPatience.
func orphanDecision(seen, sent bool, sinceDeleted, sinceDeletePod, interval time.Duration) orphanAction {
	switch {
	case !seen:
		return confirmOrphan
	case sent, sinceDeleted < interval:
		return leaveToDeletePod
	case sinceDeleted < deletePodPatience && sinceDeletePod < interval:
		return leaveToDeletePod
	}
	return deleteWatchedOrphan
}

// orphanActionFor applies orphanDecision to sp, a ShadowPod of a pod in
// localNs: a recorded deletion counts only for the pod whose UID sp records.
func (h *Handler) orphanActionFor(localNs string, sp *metav1.PartialObjectMetadata, now time.Time, interval time.Duration) orphanAction {
	recorded := sp.Annotations[LocalPodUIDAnnotation]
	h.mu.Lock()
	d, ok := h.deletedLocally[key(localNs, sp.Name)]
	last := h.lastDeletePod
	h.mu.Unlock()
	seen := ok && recorded != "" && string(d.uid) == recorded
	sinceDeletePod := time.Duration(1<<63 - 1)
	if !last.IsZero() && !h.noProviderPod(localNs, sp.Name) {
		sinceDeletePod = now.Sub(last)
	}
	return orphanDecision(seen, d.sent, now.Sub(d.at), sinceDeletePod, interval)
}

// noProviderPod reports that the provider's pod of name is known not to
// exist (its twin is watched and listed, and holds no such pod). Then
// virtual-kubelet, which asks GetPod before DeletePod and skips a pod with no
// view, will not call DeletePod for it, however busy DeletePod is with other
// pods: the resync need not wait deletePodPatience for it.
func (h *Handler) noProviderPod(localNs, name string) bool {
	if h.Twins == nil || !h.Twins.Synced(localNs) {
		return false
	}
	_, ok := h.Twins.Get(localNs, name)
	return !ok
}

// forgetDeletion drops the record of a pod's deletion once its ShadowPod is
// deleted by the resync.
func (h *Handler) forgetDeletion(localNs, name string) {
	h.mu.Lock()
	delete(h.deletedLocally, key(localNs, name))
	h.mu.Unlock()
}

// pruneDeletions drops the deletions seen longer ago than deletePodPatience
// and an interval: by then the resync has acted on their ShadowPods, and a
// ShadowPod still listed later goes the confirmed way. Records are not
// dropped when DeletePod runs: a pass working from a list taken before
// DeletePod's DELETE still finds the ShadowPod, and must still leave it.
func (h *Handler) pruneDeletions(now time.Time, interval time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for k, d := range h.deletedLocally {
		if now.Sub(d.at) > deletePodPatience+interval {
			delete(h.deletedLocally, k)
		}
	}
}

// deleteWatchedShadowPod deletes pod's ShadowPod without reading it first
// when the provider's pod in the TwinWatcher says which one it is: the pod
// records pod's UID (so the ShadowPod that made it was pod's, see
// LocalPodUIDAnnotation) and its controller reference names the ShadowPod's
// UID, which the DELETE takes as its precondition. DeletePod read every
// ShadowPod before deleting it, one GET per pod on the provider (issue 17,
// lever 13). It reports false, to read the ShadowPod, when the watch has no
// such pod (not created yet, or of another local pod of that name) or the
// precondition fails (the ShadowPod was replaced since).
func (h *Handler) deleteWatchedShadowPod(ctx context.Context, remoteNs string, pod *corev1.Pod) (bool, error) {
	r, ok := h.Twins.Get(pod.Namespace, pod.Name)
	if !ok || pod.UID == "" || r.Annotations[LocalPodUIDAnnotation] != string(pod.UID) {
		return false, nil
	}
	owner := metav1.GetControllerOf(r)
	if owner == nil || owner.Kind != "ShadowPod" || owner.Name != pod.Name || owner.UID == "" {
		return false, nil
	}
	sp := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: remoteNs, Name: pod.Name, UID: owner.UID}}
	h.markDeleting(pod)
	err := h.Remote.Delete(ctx, sp, client.Preconditions{UID: &owner.UID})
	switch {
	case err == nil || apierrors.IsNotFound(err):
		return true, nil
	case apierrors.IsConflict(err):
		return false, nil
	}
	return false, fmt.Errorf("deleting ShadowPod %s/%s on the provider: %w", remoteNs, pod.Name, err)
}

// reportIfGone reports pod terminated when the provider has no pod of its
// name any more, so the local pod is released.
func (h *Handler) reportIfGone(pod *corev1.Pod) {
	if _, ok := h.Twins.Get(pod.Namespace, pod.Name); !ok && h.Twins.Synced(pod.Namespace) {
		h.reportGone(pod.Namespace, pod.Name, pod.UID)
	}
}
