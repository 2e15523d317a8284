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
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestThePodsPhaseAndReadinessAreCopiedBack(t *testing.T) {
	sp := newShadowPod("web")
	e := newEnv(t, newTwin(), sp)
	g := e.g
	_, got := e.mustReconcile(sp)
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(-1)), "InProgress until the pod is ready")

	e.kubelet(sp, corev1.PodRunning, false)
	_, got = e.mustReconcile(sp)
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning))
	g.Expect(condition(got, meta.ReadyCondition)).To(And(HaveField("Status", metav1.ConditionFalse),
		HaveField("Message", "pod shop-rome/web is Running and not ready")))
	g.Expect(condition(got, meta.ReconcilingCondition).Status).To(Equal(metav1.ConditionTrue))

	e.kubelet(sp, corev1.PodRunning, true)
	_, got = e.mustReconcile(sp)
	g.Expect(condition(got, meta.ReadyCondition)).To(And(HaveField("Status", metav1.ConditionTrue),
		HaveField("Reason", PodReadyReason), HaveField("Message", "pod shop-rome/web is ready")))
	g.Expect(condition(got, meta.ReconcilingCondition).Type).To(BeEmpty())
	g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))

	e.kubelet(sp, corev1.PodFailed, false)
	_, got = e.mustReconcile(sp)
	g.Expect(got.Status.Phase).To(Equal(corev1.PodFailed))
	g.Expect(condition(got, meta.StalledCondition).Reason).To(Equal(PodFailedReason))
	_, exists := e.pod(sp)
	g.Expect(exists).To(BeTrue(), "a failed pod stays for its logs and for the consumer to see")
}

func TestPodStateExplainsWhy(t *testing.T) {
	now := metav1.Now()
	base := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "web"}}
	for _, tc := range []struct {
		name   string
		change func(*corev1.Pod)
		want   conditionState
	}{
		{name: "unschedulable", change: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu."}}
		}, want: conditionState{reason: PodNotReadyReason,
			message: "pod shop-rome/web is Pending and not ready: Unschedulable: 0/3 nodes are available: 3 Insufficient cpu."}},
		{name: "image pull", change: func(p *corev1.Pod) {
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", State: corev1.ContainerState{
				Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "not found"}}}}
		}, want: conditionState{reason: PodNotReadyReason,
			message: "pod shop-rome/web is Pending and not ready: container web: ImagePullBackOff: not found"}},
		{name: "evicted", change: func(p *corev1.Pod) {
			p.Status.Phase, p.Status.Reason, p.Status.Message = corev1.PodFailed, "Evicted", "low on memory"
		}, want: conditionState{stalled: true, reason: PodFailedReason,
			message: "pod shop-rome/web failed: Evicted: low on memory; a failed pod is not restarted here: the consumer's controller replaces it"}},
		{name: "terminating", change: func(p *corev1.Pod) { p.DeletionTimestamp = &now },
			want: conditionState{reason: PodTerminatingReason,
				message: "pod shop-rome/web is terminating; it is recreated once gone, unless it ran to completion"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := base.DeepCopy()
			tc.change(p)
			NewWithT(t).Expect(podState(p)).To(Equal(tc.want))
		})
	}
}
