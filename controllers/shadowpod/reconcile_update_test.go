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
	"k8s.io/utils/ptr"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

var notReadyToleration = corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists,
	Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}

// dedicatedToleration is one of the consumer's the pod keeps (not-ready and
// unreachable ones are the provider's, see policies.WithoutNotReadyTolerations).
var dedicatedToleration = corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}

// edit changes the ShadowPod as the consumer would, bumping its generation.
func (e *env) edit(sp *virtualkubeletv1alpha1.ShadowPod, change func(*virtualkubeletv1alpha1.ShadowPod)) {
	e.t.Helper()
	got := &virtualkubeletv1alpha1.ShadowPod{}
	e.g.Expect(e.c.Get(e.t.Context(), keyOf(sp), got)).To(Succeed())
	change(got)
	got.Generation++
	e.g.Expect(e.c.Update(e.t.Context(), got)).To(Succeed())
}

func TestASpecChangeUpdatesWhatThePodAllows(t *testing.T) {
	sp := newShadowPod("web", func(sp *virtualkubeletv1alpha1.ShadowPod) {
		sp.Spec.Pod.InitContainers = []corev1.Container{{Name: "migrate", Image: "migrate:1"}}
		sp.Spec.Pod.ActiveDeadlineSeconds = ptr.To[int64](3600)
		sp.Spec.Pod.Tolerations = []corev1.Toleration{dedicatedToleration}
	})
	e := newEnv(t, newTwin(), sp)
	g := e.g
	e.mustReconcile(sp)
	e.kubelet(sp, corev1.PodRunning, true)
	e.mustReconcile(sp)

	gpu := corev1.Toleration{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	e.edit(sp, func(sp *virtualkubeletv1alpha1.ShadowPod) {
		sp.Spec.Pod.Containers[0].Image = "nginx:1.28"
		sp.Spec.Pod.Containers[0].Env = []corev1.EnvVar{{Name: "MODE", Value: "remote"}}
		sp.Spec.Pod.InitContainers[0].Image = "migrate:2"
		sp.Spec.Pod.ActiveDeadlineSeconds = ptr.To[int64](600)
		sp.Spec.Pod.Tolerations = append(sp.Spec.Pod.Tolerations, gpu)
		sp.Labels["version"] = "1.28"
	})
	_, got := e.mustReconcile(sp)
	pod := e.mustPod(sp)
	g.Expect(pod.Spec.Containers[0].Image).To(Equal("nginx:1.28"))
	g.Expect(pod.Spec.InitContainers[0].Image).To(Equal("migrate:2"))
	g.Expect(pod.Spec.ActiveDeadlineSeconds).To(Equal(ptr.To[int64](600)))
	g.Expect(pod.Spec.Tolerations).To(Equal([]corev1.Toleration{dedicatedToleration, gpu}))
	g.Expect(pod.Spec.Containers[0].Env).To(BeEmpty(), "env is immutable: the consumer replaces the pod to change it")
	g.Expect(pod.Labels).To(HaveKeyWithValue("version", "1.28"))
	g.Expect(condition(got, meta.ReadyCondition).Status).To(Equal(metav1.ConditionTrue))
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(2)))
}

func TestMutableSpecNeverLengthensTheDeadlineOrDropsTolerations(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.PodSpec{ActiveDeadlineSeconds: ptr.To[int64](60), Tolerations: []corev1.Toleration{notReadyToleration}}
	want := &corev1.PodSpec{ActiveDeadlineSeconds: ptr.To[int64](3600)}
	g.Expect(mutableSpec(pod, want)).To(BeFalse())
	g.Expect(pod.ActiveDeadlineSeconds).To(Equal(ptr.To[int64](60)))
	g.Expect(pod.Tolerations).To(HaveLen(1))
	want.ActiveDeadlineSeconds = nil
	g.Expect(mutableSpec(pod, want)).To(BeFalse())
	g.Expect(pod.ActiveDeadlineSeconds).To(Equal(ptr.To[int64](60)))
}
