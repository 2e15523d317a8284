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
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type nodeOpt func(*corev1.Node)

func newNode(name string, alloc corev1.ResourceList, opts ...nodeOpt) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
		Status: corev1.NodeStatus{Allocatable: alloc, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	for _, o := range opts {
		o(&n)
	}
	return n
}

func notReady(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }
func virtual(n *corev1.Node)  { n.Labels[virtualNodeLabelKey] = virtualNodeLabelValue }
func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }
func rl(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func newPod(node string, phase corev1.PodPhase, requests corev1.ResourceList) corev1.Pod {
	return corev1.Pod{Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: requests}}}},
		Status: corev1.PodStatus{Phase: phase}}
}

func TestFreeAllocatableCountsOnlyReadyPhysicalSchedulableNodes(t *testing.T) {
	g := NewWithT(t)
	nodes := []corev1.Node{
		newNode("a", rl("cpu", "8", "memory", "32Gi", "pods", "110")),
		newNode("b", rl("cpu", "8", "memory", "32Gi", "pods", "110")),
		newNode("down", rl("cpu", "8"), notReady),
		newNode("liqo-rome", rl("cpu", "100"), virtual),
		newNode("drained", rl("cpu", "8"), cordoned),
	}
	pods := []corev1.Pod{
		newPod("a", corev1.PodRunning, rl("cpu", "2", "memory", "4Gi")),
		newPod("b", corev1.PodSucceeded, rl("cpu", "8")),        // finished: frees its node
		newPod("liqo-rome", corev1.PodRunning, rl("cpu", "50")), // on a node not counted
		newPod("", corev1.PodPending, rl("cpu", "1")),           // unscheduled
	}
	free := FreeAllocatable(nodes, pods)
	g.Expect(free.Cpu().String()).To(Equal("14"))
	g.Expect(free.Memory().String()).To(Equal("60Gi"))
	g.Expect(free.Pods().Value()).To(Equal(int64(219)))
}

func TestFreeAllocatableNeverNegative(t *testing.T) {
	g := NewWithT(t)
	free := FreeAllocatable([]corev1.Node{newNode("a", rl("cpu", "1"))}, []corev1.Pod{newPod("a", corev1.PodRunning, rl("cpu", "3"))})
	g.Expect(free.Cpu().IsZero()).To(BeTrue())
}

func TestScaleOfferKeepsMillicoresAndRoundsIntegersDown(t *testing.T) {
	g := NewWithT(t)
	offered, zeroed := ScaleOffer(rl("cpu", "14", "memory", "10Gi", "pods", "219", "nvidia.com/gpu", "3"), 90)
	g.Expect(offered.Cpu().MilliValue()).To(Equal(int64(12600)))
	g.Expect(offered.Memory().Value()).To(Equal(int64(10*1024*1024*1024) * 9 / 10))
	g.Expect(offered.Pods().Value()).To(Equal(int64(197)))
	gpu := offered["nvidia.com/gpu"]
	g.Expect(gpu.Value()).To(Equal(int64(2)))
	g.Expect(zeroed).To(BeEmpty())
}

func TestScaleOfferNamesAResourceRoundedToZero(t *testing.T) {
	g := NewWithT(t)
	offered, zeroed := ScaleOffer(rl("cpu", "4", "nvidia.com/gpu", "1"), 90)
	gpu := offered["nvidia.com/gpu"]
	g.Expect(gpu.IsZero()).To(BeTrue())
	g.Expect(zeroed).To(HaveLen(1))
	g.Expect(zeroed[0].Name).To(Equal(corev1.ResourceName("nvidia.com/gpu")))
	msg := RoundedToZeroMessage(zeroed, 90)
	g.Expect(msg).To(ContainSubstring("nvidia.com/gpu: 90% of 1 free rounds down to 0"))
	g.Expect(msg).To(ContainSubstring("spec.sharingPercentage"))
	// 100% keeps it.
	_, zeroed = ScaleOffer(rl("nvidia.com/gpu", "1"), 100)
	g.Expect(zeroed).To(BeEmpty())
}
