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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func scheduledLocally() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(100, 0)}}}}
}

func TestKeepLocalSchedulingHidesTheProvidersBindingButNotItsFailure(t *testing.T) {
	g := NewWithT(t)
	local := scheduledLocally()
	// A fresh remote pod has no condition: the local one stays scheduled.
	st := corev1.PodStatus{Phase: corev1.PodPending}
	keepLocalScheduling(&st, local)
	g.Expect(st.Conditions).To(Equal(local.Status.Conditions))
	// The provider bound it: same view as before, so nothing to write.
	bound := corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(200, 0)}}}
	keepLocalScheduling(&bound, local)
	g.Expect(bound).To(Equal(st))
	// The provider cannot schedule it: the consumer must see why.
	failed := corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/2 nodes are available"}}}
	keepLocalScheduling(&failed, local)
	g.Expect(failed.Conditions[0].Reason).To(Equal("Unschedulable"))
}

func TestEmitIfChangedSkipsOnlyWhatTheLocalPodAlreadyShows(t *testing.T) {
	g := NewWithT(t)
	local := scheduledLocally()
	h := &Handler{LocalPods: fake.NewClientBuilder().WithObjects(local).Build()}
	var emitted []corev1.PodPhase
	h.notify = func(p *corev1.Pod) { emitted = append(emitted, p.Status.Phase) }

	same := local.DeepCopy()
	h.emitIfChanged(same)
	g.Expect(emitted).To(BeEmpty(), "the local pod already shows this status")

	running := local.DeepCopy()
	running.Status.Phase = corev1.PodRunning
	h.emitIfChanged(running)
	g.Expect(emitted).To(Equal([]corev1.PodPhase{corev1.PodRunning}))

	// A pod the cache does not hold is always reported.
	other := running.DeepCopy()
	other.Name = "not-cached"
	h.emitIfChanged(other)
	g.Expect(emitted).To(HaveLen(2))
}
