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

package policies

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func TestWithoutVirtualNodeTolerations(t *testing.T) {
	vk := offloadingv1alpha1.VirtualNodeTaintKey
	for _, tc := range []struct {
		name string
		in   corev1.Toleration
		kept bool
	}{
		{name: "the virtual-node taint", in: corev1.Toleration{Key: vk, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		{name: "its key, any effect", in: corev1.Toleration{Key: vk, Operator: corev1.TolerationOpExists}},
		{name: "its key and value", in: corev1.Toleration{Key: vk, Operator: corev1.TolerationOpEqual, Value: "true"}},
		{name: "every taint", in: corev1.Toleration{Operator: corev1.TolerationOpExists}},
		{name: "every NoExecute taint", in: corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		{name: "every NoSchedule taint cannot pass NoExecute", in: corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, kept: true},
		{name: "its key, NoSchedule only", in: corev1.Toleration{Key: vk, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, kept: true},
		{name: "another key", in: corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}, kept: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			out := WithoutVirtualNodeTolerations([]corev1.Toleration{tc.in})
			if tc.kept {
				g.Expect(out).To(Equal([]corev1.Toleration{tc.in}))
			} else {
				g.Expect(out).To(BeEmpty())
			}
		})
	}
}

func TestBrokerOffloadingSelectsOnlyResellableNodes(t *testing.T) {
	g := NewWithT(t)
	spec := BrokerOffloading("rome-id")
	g.Expect(spec.PodOffloadingStrategy).To(Equal(offloadingv1alpha1.RemotePodOffloadingStrategy))
	nodes := []corev1.Node{
		newNode("worker", nil),
		newNode("liqo-milan", nil, providedBy("milan-id")),
		newNode("liqo-rome", nil, providedBy("rome-id")),
		newNode("liqo-venice", nil, providedBy("venice-id"), brokered),
	}
	selected, err := SelectedClusters(spec.ClusterSelector, nodes)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(selected).To(Equal([]string{"milan-id"}))
	g.Expect(ResellableNodes(nodes, "rome-id")).To(Equal([]string{"liqo-milan"}), "pods go exactly where the offer's capacity comes from")
}
