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

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
)

func TestPodPredicatePassesWhatIsMirroredOrRepaired(t *testing.T) {
	running := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "web", Labels: map[string]string{"app": "web"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}}}
	now := metav1.Now()
	for _, tc := range []struct {
		name   string
		change func(*corev1.Pod)
		passes bool
	}{
		{name: "pod IP", change: func(p *corev1.Pod) { p.Status.PodIP = "10.0.0.7" }},
		{name: "probe time", change: func(p *corev1.Pod) { p.Status.Conditions[0].LastProbeTime = now }},
		{name: "ready", change: func(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionTrue }, passes: true},
		{name: "phase", change: func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }, passes: true},
		{name: "terminating", change: func(p *corev1.Pod) { p.DeletionTimestamp = &now }, passes: true},
		{name: "edited", change: func(p *corev1.Pod) { p.Generation = 2 }, passes: true},
		{name: "relabelled", change: func(p *corev1.Pod) { p.Labels = nil }, passes: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := running.DeepCopy()
			tc.change(changed)
			NewWithT(t).Expect(podChanged.Update(event.UpdateEvent{ObjectOld: running, ObjectNew: changed})).To(Equal(tc.passes))
		})
	}
	g := NewWithT(t)
	g.Expect(podChanged.Delete(event.DeleteEvent{Object: running})).To(BeTrue(), "a deleted pod is recreated")
	g.Expect(podChanged.Create(event.CreateEvent{Object: running})).To(BeTrue())
}

func TestRanToCompletion(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ranToCompletion(corev1.PodSucceeded, corev1.RestartPolicyAlways)).To(BeTrue())
	g.Expect(ranToCompletion(corev1.PodFailed, corev1.RestartPolicyNever)).To(BeTrue())
	g.Expect(ranToCompletion(corev1.PodFailed, corev1.RestartPolicyOnFailure)).To(BeTrue())
	g.Expect(ranToCompletion(corev1.PodFailed, corev1.RestartPolicyAlways)).To(BeFalse())
	g.Expect(ranToCompletion(corev1.PodFailed, "")).To(BeFalse(), "empty means Always")
	g.Expect(ranToCompletion(corev1.PodRunning, corev1.RestartPolicyNever)).To(BeFalse())
	g.Expect(ranToCompletion("", corev1.RestartPolicyNever)).To(BeFalse())
}
