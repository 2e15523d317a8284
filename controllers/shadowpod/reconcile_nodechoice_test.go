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

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// A consumer that picks one of this cluster's nodes, or tolerates its virtual
// nodes, would choose a broker's provider, or make a plain provider pass its
// pod on: the pod this cluster creates keeps none of it.
func TestThePodKeepsNoNodeChoiceOfTheConsumers(t *testing.T) {
	toMilan := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: virtualkubeletv1alpha1.RemoteClusterIDLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{"milan-id"}}}}
	antiAffinity := &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 100,
		PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}
	gpu := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}
	sp := newShadowPod("web", func(sp *virtualkubeletv1alpha1.ShadowPod) {
		sp.Spec.Pod.NodeSelector = map[string]string{virtualkubeletv1alpha1.RemoteClusterIDLabel: "milan-id"}
		sp.Spec.Pod.Affinity = &corev1.Affinity{PodAntiAffinity: antiAffinity, NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{toMilan}}}}
		sp.Spec.Pod.Tolerations = []corev1.Toleration{
			{Key: offloadingv1alpha1.VirtualNodeTaintKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
			{Operator: corev1.TolerationOpExists}, // tolerates every taint, the virtual node's too
			gpu,
		}
	})
	e := newEnv(t, newTwin(), sp)
	e.mustReconcile(sp)
	pod := e.mustPod(sp)
	e.g.Expect(pod.Spec.NodeSelector).To(BeEmpty())
	e.g.Expect(pod.Spec.Affinity).To(Equal(&corev1.Affinity{PodAntiAffinity: antiAffinity}), "pod anti-affinity is the consumer's to keep")
	e.g.Expect(pod.Spec.Tolerations).To(Equal([]corev1.Toleration{gpu}))
	// Nor are they added later, as tolerations a running pod may gain.
	e.mustReconcile(sp)
	e.g.Expect(e.mustPod(sp).Spec.Tolerations).To(Equal([]corev1.Toleration{gpu}))
}
