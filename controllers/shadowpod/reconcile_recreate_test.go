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

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func TestADeletedPodIsRecreatedAndCounted(t *testing.T) {
	sp := newShadowPod("web")
	e := newEnv(t, newTwin(), sp)
	g := e.g
	e.mustReconcile(sp)
	e.kubelet(sp, corev1.PodRunning, true)
	e.mustReconcile(sp)

	// Evicted or drained while the consumer may be unreachable.
	e.deletePod(sp)
	_, got := e.mustReconcile(sp)
	pod := e.mustPod(sp)
	g.Expect(pod.OwnerReferences).To(HaveLen(1))
	recreated := condition(got, PodRecreatedCondition)
	g.Expect(recreated.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(recreated.Reason).To(Equal(PodRecreatedReason))
	g.Expect(recreated.Message).To(Equal("recreated 1 time; last, pod shop-rome/web had disappeared while Running"))
	g.Expect(got.Status.Phase).To(Equal(corev1.PodPending))
	g.Expect(pod.Annotations).To(HaveKeyWithValue(virtualkubeletv1alpha1.RecreationsAnnotation, "1"), "the consumer counts restarts from the pod")

	e.deletePod(sp)
	_, got = e.mustReconcile(sp)
	g.Expect(condition(got, PodRecreatedCondition).Message).To(HavePrefix("recreated 2 times;"))
	_, exists := e.pod(sp)
	g.Expect(exists).To(BeTrue())
	g.Expect(e.mustPod(sp).Annotations).To(HaveKeyWithValue(virtualkubeletv1alpha1.RecreationsAnnotation, "2"))

	// Further passes with the pod in place count nothing.
	_, got = e.mustReconcile(sp)
	g.Expect(condition(got, PodRecreatedCondition).Message).To(HavePrefix("recreated 2 times;"))
	g.Expect(condition(got, meta.ReadyCondition).Status).To(Equal(metav1.ConditionFalse), "the new pod is not ready yet")
}

func TestADeletingShadowPodGetsNoNewPod(t *testing.T) {
	sp := newShadowPod("web")
	sp.Finalizers = []string{"example.com/hold"} // keeps it visible while deleted
	e := newEnv(t, newTwin(), sp)
	g := e.g
	e.mustReconcile(sp)
	g.Expect(e.c.Delete(t.Context(), sp)).To(Succeed())
	e.deletePod(sp) // garbage collection at work
	_, err := e.reconcile(sp)
	g.Expect(err).NotTo(HaveOccurred())
	_, exists := e.pod(sp)
	g.Expect(exists).To(BeFalse())
}
