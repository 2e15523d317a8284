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
	"time"

	corev1 "k8s.io/api/core/v1"
)

// createPodPatience bounds how long the resync leaves to virtual-kubelet's
// queue a pod bound to the node that the queue has not handed to CreatePod
// yet. Past it the resync writes the pod's ShadowPod itself, as it does for
// any live pod whose ShadowPod is missing. The same bound as for deletions
// (deletePodPatience): the queue drains at the remote client's QPS.
const createPodPatience = deletePodPatience

// noteCreatePod records that virtual-kubelet is working through creations.
func (h *Handler) noteCreatePod() {
	h.mu.Lock()
	h.lastCreatePod = time.Now()
	h.mu.Unlock()
}

// queuedForCreate reports a live pod, bound to the node, whose ShadowPod the
// resync does not see, and which is virtual-kubelet's to create: the queue
// has not handed it to CreatePod or UpdatePod (this handler keeps no pod of
// its UID) and it has never started. The resync used to ask the provider for
// such a pod's ShadowPod and write it itself, racing the queue: when the
// machine is saturated the queue trails by seconds, and at 1,000 pods
// created at 50/s (issue 17, target 4) every pass did so for hundreds of
// pods (0.48 provider reads per pod, local reads, ShadowPod creates refused
// as existing), and logged each as a missing ShadowPod.
func (h *Handler) queuedForCreate(pod *corev1.Pod, now time.Time, interval time.Duration) bool {
	if started(pod) {
		return false
	}
	h.mu.Lock()
	kept := h.local[key(pod.Namespace, pod.Name)]
	sinceCreatePod := now.Sub(h.lastCreatePod)
	h.mu.Unlock()
	if kept != nil && kept.UID == pod.UID {
		return false
	}
	return leaveToCreatePod(now.Sub(boundAt(pod)), sinceCreatePod, interval)
}

// leaveToCreatePod decides for such a pod from how long ago it was bound, how
// long since CreatePod was last called (a long time when never) and the
// resync's interval, as orphanDecision does for deletions: a pod bound less
// than an interval ago is the queue's; an older one too while CreatePod is
// still being called (the queue drains in order), up to createPodPatience.
func leaveToCreatePod(sinceBound, sinceCreatePod, interval time.Duration) bool {
	switch {
	case sinceBound < interval:
		return true
	case sinceBound < createPodPatience && sinceCreatePod < interval:
		return true
	}
	return false
}

// boundAt is when pod was scheduled, from its PodScheduled condition, else
// when it was created; zero when it says neither, which counts as long ago.
func boundAt(pod *corev1.Pod) time.Time {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue && !c.LastTransitionTime.IsZero() {
			return c.LastTransitionTime.Time
		}
	}
	return pod.CreationTimestamp.Time
}

// ownShadowPodWatched reports whether the provider's watches show pod's own
// ShadowPod in remoteNs: the ShadowPod itself recording pod's UID, or the
// provider's pod it made recording it (see LocalPodUIDAnnotation). Then
// sync's caller is UpdatePod, a retry, or CreatePod again after a restart,
// and sync updates the ShadowPod instead of creating it: every label or
// annotation change of a running pod cost a create refused as existing, a
// read, then the update. What the watches show only chooses the path: adopt
// reads the ShadowPod and decides from what it reads.
func (h *Handler) ownShadowPodWatched(pod *corev1.Pod, remoteNs string) bool {
	if pod.UID == "" {
		return false
	}
	if sp, ok := h.Twins.ShadowPod(pod.Namespace, remoteNs, pod.Name); ok && sp.Annotations[LocalPodUIDAnnotation] == string(pod.UID) {
		return true
	}
	r, ok := h.Twins.Get(pod.Namespace, pod.Name)
	return ok && r.Annotations[LocalPodUIDAnnotation] == string(pod.UID)
}
