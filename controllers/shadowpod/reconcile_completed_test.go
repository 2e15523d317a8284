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

func TestACompletedPodIsNotRecreated(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    corev1.RestartPolicy
		phase     corev1.PodPhase
		recreated bool
		ready     metav1.ConditionStatus
		reason    string
	}{
		{name: "succeeded job", policy: corev1.RestartPolicyNever, phase: corev1.PodSucceeded,
			ready: metav1.ConditionTrue, reason: PodSucceededReason},
		{name: "succeeded OnFailure", policy: corev1.RestartPolicyOnFailure, phase: corev1.PodSucceeded,
			ready: metav1.ConditionTrue, reason: PodSucceededReason},
		{name: "failed job", policy: corev1.RestartPolicyNever, phase: corev1.PodFailed,
			ready: metav1.ConditionFalse, reason: PodFailedReason},
		{name: "failed OnFailure (deadline)", policy: corev1.RestartPolicyOnFailure, phase: corev1.PodFailed,
			ready: metav1.ConditionFalse, reason: PodFailedReason},
		{name: "evicted server", policy: corev1.RestartPolicyAlways, phase: corev1.PodFailed, recreated: true,
			ready: metav1.ConditionFalse, reason: PodNotReadyReason},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := newShadowPod("job", withRestartPolicy(tc.policy))
			e := newEnv(t, newTwin(), sp)
			g := e.g
			e.mustReconcile(sp)
			e.kubelet(sp, tc.phase, false)
			_, got := e.mustReconcile(sp)
			g.Expect(got.Status.Phase).To(Equal(tc.phase))

			// A TTL, podgc or a person deletes the finished pod.
			e.deletePod(sp)
			_, got = e.mustReconcile(sp)
			_, exists := e.pod(sp)
			g.Expect(exists).To(Equal(tc.recreated))
			g.Expect(condition(got, PodRecreatedCondition).Status == metav1.ConditionTrue).To(Equal(tc.recreated))
			ready := condition(got, meta.ReadyCondition)
			g.Expect(ready.Status).To(Equal(tc.ready))
			g.Expect(ready.Reason).To(Equal(tc.reason))
			if !tc.recreated {
				g.Expect(got.Status.Phase).To(Equal(tc.phase), "the last state is kept")
				g.Expect(ready.Message).To(ContainSubstring("has since been deleted"))
				g.Expect(got.Status.ObservedGeneration).To(Equal(int64(1)), "a completed pod is a final state")
				g.Expect(condition(got, meta.ReconcilingCondition).Type).To(BeEmpty())
			}
		})
	}
}
