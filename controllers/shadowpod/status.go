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

package shadowpod

import (
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// PodRecreatedCondition is True once the pod has been recreated after
// disappearing; its message counts the recreations ("recreated 3 times"). It
// is informational: a recreated pod is not a failure, so Ready ignores it.
const PodRecreatedCondition = "PodRecreated"

// Reasons beyond the API's shared ones; each names one thing a person can act on.
const (
	// PodRecreatedReason: see PodRecreatedCondition.
	PodRecreatedReason = "PodRecreated"
	// PodReadyReason: the pod is Ready.
	PodReadyReason = "PodReady"
	// PodNotReadyReason: the pod is pending, starting or failing its readiness probe.
	PodNotReadyReason = "PodNotReady"
	// PodSucceededReason: the pod ran to completion, which is what it was for.
	PodSucceededReason = "PodSucceeded"
	// PodFailedReason: the pod failed for good; the consumer replaces it.
	PodFailedReason = "PodFailed"
	// PodTerminatingReason: the pod is being deleted (eviction, drain).
	PodTerminatingReason = "PodTerminating"
	// PodNameTakenReason: a pod of the ShadowPod's name exists that it does not control.
	PodNameTakenReason = "PodNameTaken"
	// NotInTwinNamespaceReason: the ShadowPod is outside a twin namespace.
	NotInTwinNamespaceReason = "NotInTwinNamespace"
	// PodPolicyViolationReason: the pod breaks the provider's pod policy and
	// was not created.
	PodPolicyViolationReason = "PodPolicyViolation"
)

// conditionState is one computed condition.
type conditionState struct {
	status          bool
	stalled         bool
	reason, message string
}

// podState is Ready as the pod's state says it, a ladder of early returns.
// A pod that ran to completion counts as Ready: it did what it was for, and
// anything else would keep the ShadowPod of every finished Job InProgress
// for kstatus and Flux health checks forever.
func podState(pod *corev1.Pod) conditionState {
	name := pod.Namespace + "/" + pod.Name
	switch {
	case pod.DeletionTimestamp != nil:
		return conditionState{reason: PodTerminatingReason, message: fmt.Sprintf(
			"pod %s is terminating; it is recreated once gone, unless it ran to completion", name)}
	case pod.Status.Phase == corev1.PodSucceeded:
		return conditionState{status: true, reason: PodSucceededReason, message: fmt.Sprintf("pod %s ran to completion", name)}
	case pod.Status.Phase == corev1.PodFailed:
		return conditionState{stalled: true, reason: PodFailedReason, message: fmt.Sprintf(
			"pod %s failed%s; a failed pod is not restarted here: the consumer's controller replaces it", name, detail(pod))}
	case podReady(pod):
		return conditionState{status: true, reason: PodReadyReason, message: fmt.Sprintf("pod %s is ready", name)}
	}
	phase := pod.Status.Phase
	if phase == "" {
		phase = corev1.PodPending
	}
	return conditionState{reason: PodNotReadyReason, message: fmt.Sprintf("pod %s is %s and not ready%s", name, phase, detail(pod))}
}

func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// detail is the most telling reason the pod gives for its state, as ": why".
func detail(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			return fmt.Sprintf(": %s: %s", c.Reason, c.Message)
		}
	}
	for _, cs := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" && w.Reason != "PodInitializing" {
			return fmt.Sprintf(": container %s: %s: %s", cs.Name, w.Reason, w.Message)
		}
	}
	if pod.Status.Reason != "" || pod.Status.Message != "" {
		return fmt.Sprintf(": %s: %s", pod.Status.Reason, pod.Status.Message)
	}
	return ""
}

// mirrorPod copies the pod's phase and readiness into the ShadowPod status,
// and tells whether the pod is merely starting (see merelyStarting).
func mirrorPod(sp *virtualkubeletv1alpha1.ShadowPod, pod *corev1.Pod) bool {
	sp.Status.Phase = pod.Status.Phase
	if sp.Status.Phase == "" {
		// Just created: the API server has not filled the status yet.
		sp.Status.Phase = corev1.PodPending
	}
	apply(sp, podState(pod))
	return merelyStarting(pod)
}

// merelyStarting tells a pod that says nothing yet: Pending (or not given a
// phase yet), not being deleted, and giving no reason for waiting (just
// created, bound, ContainerCreating). Unschedulable, an image that cannot be
// pulled, or a scheduling gate are reasons, and are reported at once.
func merelyStarting(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp == nil && (pod.Status.Phase == "" || pod.Status.Phase == corev1.PodPending) && detail(pod) == ""
}

// firstReportCanWait tells a status write that is left out: the ShadowPod has
// never had a status, and the new one would say only that its pod is
// starting, or nothing at all (Reconciling alone, when a create raced the
// cache). Its first status is then the first state that says something
// (Ready, a reason for waiting, terminal, refused, recreated); a normal start
// costs one status write instead of two. Nothing reads the Pending report:
// the consumer watches the pod itself, and kstatus reads the ShadowPod
// without status as InProgress (the CRD defaults observedGeneration to -1).
// Once a status exists, every change is written.
func firstReportCanWait(before, after virtualkubeletv1alpha1.ShadowPodStatus, podMerelyStarting bool) bool {
	if hasReport(before) || after.LastHandledReconcileAt != before.LastHandledReconcileAt {
		return false
	}
	return podMerelyStarting || apimeta.FindStatusCondition(after.Conditions, meta.ReadyCondition) == nil
}

// hasReport tells a status this controller (or anyone) has written: a fresh
// ShadowPod carries only the CRD's default observedGeneration.
func hasReport(st virtualkubeletv1alpha1.ShadowPodStatus) bool {
	return st.Phase != "" || len(st.Conditions) > 0 || st.LastHandledReconcileAt != ""
}

// markCompletedPodGone keeps the last state of a completed pod that has since
// been deleted (by a TTL, podgc or a person): it is not recreated.
func markCompletedPodGone(sp *virtualkubeletv1alpha1.ShadowPod) {
	name := sp.Namespace + "/" + sp.Name
	if sp.Status.Phase == corev1.PodSucceeded {
		apply(sp, conditionState{status: true, reason: PodSucceededReason, message: fmt.Sprintf(
			"pod %s ran to completion and has since been deleted; pods that ran to completion are not recreated", name)})
		return
	}
	apply(sp, conditionState{stalled: true, reason: PodFailedReason, message: fmt.Sprintf(
		"pod %s failed and has since been deleted; with restartPolicy %s it is not recreated: the consumer's controller replaces it",
		name, sp.Spec.Pod.RestartPolicy)})
}

func apply(sp *virtualkubeletv1alpha1.ShadowPod, st conditionState) {
	if st.status {
		conditions.MarkTrue(sp, meta.ReadyCondition, st.reason, "%s", st.message)
		return
	}
	fluxstatus.MarkNotReady(sp, st.stalled, st.reason, "%s", st.message)
}

// recreations is the count the PodRecreated condition carries. Unlike other
// conditions, it is read back: it is the only durable record of the count,
// and a count lost to an edit of the status only misreports, never misacts.
func recreations(sp *virtualkubeletv1alpha1.ShadowPod) int {
	var n int
	if c := conditions.Get(sp, PodRecreatedCondition); c != nil {
		if _, err := fmt.Sscanf(c.Message, "recreated %d", &n); err != nil {
			return 0
		}
	}
	return n
}

// countRecreation records one more recreation after done, and why it was
// needed.
func countRecreation(sp *virtualkubeletv1alpha1.ShadowPod, previous corev1.PodPhase, done int) {
	n := done + 1
	times := "times"
	if n == 1 {
		times = "time"
	}
	conditions.MarkTrue(sp, PodRecreatedCondition, PodRecreatedReason,
		"recreated %d %s; last, pod %s/%s had disappeared while %s", n, times, sp.Namespace, sp.Name, previous)
}
