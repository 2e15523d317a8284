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
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// setPodStatus changes the pod's status as the scheduler or the kubelet would.
func (e *env) setPodStatus(sp *virtualkubeletv1alpha1.ShadowPod, change func(*corev1.PodStatus)) {
	e.t.Helper()
	pod := e.mustPod(sp)
	change(&pod.Status)
	e.g.Expect(e.c.Status().Update(context.Background(), pod)).To(Succeed())
}

// bound is a pod the scheduler has placed and whose containers are being created.
func bound(st *corev1.PodStatus) {
	st.Phase = corev1.PodPending
	st.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}}
	st.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", State: corev1.ContainerState{
		Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}}}
}

func TestANormalStartWritesTheStatusOnce(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g

	_, got := e.mustReconcile(sp) // creates the pod
	g.Expect(lc.patches).To(BeZero(), "a pod just created says nothing yet")
	g.Expect(got.Status).To(Equal(virtualkubeletv1alpha1.ShadowPodStatus{ObservedGeneration: -1}),
		"kstatus reads the CRD's default observedGeneration -1 as InProgress")
	e.mustReconcile(sp) // the pod's creation event
	e.setPodStatus(sp, bound)
	e.mustReconcile(sp)
	g.Expect(lc.patches).To(BeZero(), "nor does a bound pod whose containers are being created")

	e.kubelet(sp, corev1.PodRunning, true)
	_, got = e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1))
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning))
	g.Expect(condition(got, meta.ReadyCondition)).To(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", PodReadyReason)))
	g.Expect(condition(got, meta.ReconcilingCondition).Type).To(BeEmpty())
	g.Expect(condition(got, PodRecreatedCondition).Type).To(BeEmpty(), "a first creation is not a recreation")
	g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
}

func TestAPodWaitingForAReasonIsReportedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, why string
		status    func(*corev1.PodStatus)
	}{
		{name: "unschedulable", why: "Unschedulable: 0/3 nodes are available", status: func(st *corev1.PodStatus) {
			st.Phase = corev1.PodPending
			st.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu."}}
		}},
		{name: "image pull", why: "container web: ImagePullBackOff", status: func(st *corev1.PodStatus) {
			bound(st)
			st.ContainerStatuses[0].State.Waiting = &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "not found"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := newShadowPod("web")
			e, lc := newLaggingEnv(t, sp)
			g := e.g
			e.mustReconcile(sp)
			e.setPodStatus(sp, tc.status)
			_, got := e.mustReconcile(sp)
			g.Expect(lc.patches).To(Equal(1))
			g.Expect(got.Status.Phase).To(Equal(corev1.PodPending))
			g.Expect(condition(got, meta.ReadyCondition)).To(And(HaveField("Status", metav1.ConditionFalse),
				HaveField("Reason", PodNotReadyReason), HaveField("Message", ContainSubstring(tc.why))))
			g.Expect(condition(got, meta.ReconcilingCondition).Status).To(Equal(metav1.ConditionTrue))

			// Once there is a status, every change is written: the reason is gone.
			e.setPodStatus(sp, bound)
			_, got = e.mustReconcile(sp)
			g.Expect(lc.patches).To(Equal(2))
			g.Expect(condition(got, meta.ReadyCondition).Message).To(Equal("pod shop-rome/web is Pending and not ready"))
		})
	}
}

func TestATerminalPodIsReportedWithoutAnEarlierReport(t *testing.T) {
	for _, tc := range []struct {
		phase  corev1.PodPhase
		ready  metav1.ConditionStatus
		reason string
	}{
		{phase: corev1.PodSucceeded, ready: metav1.ConditionTrue, reason: PodSucceededReason},
		{phase: corev1.PodFailed, ready: metav1.ConditionFalse, reason: PodFailedReason},
	} {
		t.Run(string(tc.phase), func(t *testing.T) {
			sp := newShadowPod("job", withRestartPolicy(corev1.RestartPolicyNever))
			e, lc := newLaggingEnv(t, sp)
			g := e.g
			e.mustReconcile(sp)
			e.kubelet(sp, tc.phase, false) // a short Job: Pending to done between two looks
			_, got := e.mustReconcile(sp)
			g.Expect(lc.patches).To(Equal(1))
			g.Expect(got.Status.Phase).To(Equal(tc.phase))
			g.Expect(condition(got, meta.ReadyCondition)).To(And(HaveField("Status", tc.ready), HaveField("Reason", tc.reason)))

			// The report is what keeps a finished pod from running twice.
			e.deletePod(sp)
			e.mustReconcile(sp)
			_, exists := e.pod(sp)
			g.Expect(exists).To(BeFalse())
		})
	}
}

func TestAPendingPodBeingDeletedIsReported(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp)
	pod := e.mustPod(sp)
	pod.Finalizers = []string{"example.com/hold"} // keeps it visible while terminating
	g.Expect(e.c.Update(context.Background(), pod)).To(Succeed())
	e.deletePod(sp)
	_, got := e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1))
	g.Expect(condition(got, meta.ReadyCondition).Reason).To(Equal(PodTerminatingReason))
}

func TestAReconcileRequestOnAStartingPodIsAnswered(t *testing.T) {
	sp := newShadowPod("web", withAnnotation(meta.ReconcileRequestAnnotation, "2026-11-27T02:00:00Z"))
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	_, got := e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1), "whoever asked waits for lastHandledReconcileAt")
	g.Expect(got.Status.LastHandledReconcileAt).To(Equal("2026-11-27T02:00:00Z"))
	g.Expect(got.Status.Phase).To(Equal(corev1.PodPending))
}

// A pod deleted before its ShadowPod had a status left no record that it
// existed: it is created again, as it would be on the first look, and not
// counted as a recreation (it never ran).
func TestAPodDeletedBeforeItsFirstReportIsCreatedAgainUncounted(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp)
	e.deletePod(sp)
	_, got := e.mustReconcile(sp)
	g.Expect(e.mustPod(sp).Annotations).NotTo(HaveKey(virtualkubeletv1alpha1.RecreationsAnnotation))
	g.Expect(lc.patches).To(BeZero())
	g.Expect(condition(got, PodRecreatedCondition).Type).To(BeEmpty())
}

// podCacheBehind is a cache that has not seen the pod yet: the create that
// follows is refused (AlreadyExists).
type podCacheBehind struct{ *laggingCache }

func (c podCacheBehind) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*corev1.Pod); ok {
		return apierrors.NewNotFound(corev1.Resource("pods"), key.Name)
	}
	return c.laggingCache.Get(ctx, key, obj, opts...)
}

func TestACreateThatRacedTheCacheWritesNoStatus(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp)
	e.r = &ShadowPodReconciler{Client: podCacheBehind{lc}}
	res, got := e.mustReconcile(sp)
	g.Expect(res.RequeueAfter).To(Equal(staleCacheRequeue))
	g.Expect(lc.patches).To(BeZero(), "Reconciling alone says nothing a ShadowPod without status does not")
	g.Expect(got.Status).To(Equal(virtualkubeletv1alpha1.ShadowPodStatus{ObservedGeneration: -1}))
}
