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

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func providedBy(id string) nodeOpt {
	return func(n *corev1.Node) {
		virtual(n)
		n.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel] = id
	}
}

func brokered(n *corev1.Node) { n.Labels[virtualkubeletv1alpha1.BrokeredLabel] = "true" }

func TestResellableFreeCountsOnlyProvidersVirtualNodes(t *testing.T) {
	physical := newNode("worker", rl("cpu", "64", "memory", "256Gi", "pods", "110"))
	milan := newNode("liqo-milan", rl("cpu", "8", "memory", "16Gi", "pods", "110"), providedBy("milan-id"))
	turin := newNode("liqo-turin", rl("cpu", "4", "memory", "8Gi", "pods", "110"), providedBy("turin-id"))
	cases := []struct {
		name      string
		nodes     []corev1.Node
		pods      []corev1.Pod
		wantCPU   string
		wantMem   string
		wantNodes []string
	}{
		{name: "the sum of two providers, physical nodes left out",
			nodes: []corev1.Node{physical, milan, turin}, wantCPU: "12", wantMem: "24Gi",
			wantNodes: []string{"liqo-milan", "liqo-turin"}},
		{name: "a NotReady provider drops out of the sum",
			nodes:   []corev1.Node{milan, newNode("liqo-turin", rl("cpu", "4", "memory", "8Gi"), providedBy("turin-id"), notReady)},
			wantCPU: "8", wantMem: "16Gi", wantNodes: []string{"liqo-milan"}},
		{name: "a cordoned provider drops out of the sum",
			nodes:   []corev1.Node{milan, newNode("liqo-turin", rl("cpu", "4", "memory", "8Gi"), providedBy("turin-id"), cordoned)},
			wantCPU: "8", wantMem: "16Gi", wantNodes: []string{"liqo-milan"}},
		{name: "the consumer's own capacity is never sold back to it",
			nodes:   []corev1.Node{milan, turin, newNode("liqo-rome", rl("cpu", "100", "memory", "1Ti"), providedBy("rome-id"))},
			wantCPU: "12", wantMem: "24Gi", wantNodes: []string{"liqo-milan", "liqo-turin"}},
		{name: "another broker's offer is not resold",
			nodes:   []corev1.Node{milan, turin, newNode("liqo-venice", rl("cpu", "100", "memory", "1Ti"), providedBy("venice-id"), brokered)},
			wantCPU: "12", wantMem: "24Gi", wantNodes: []string{"liqo-milan", "liqo-turin"}},
		{name: "pods running on a provider's node use its offer",
			nodes:   []corev1.Node{milan, turin},
			pods:    []corev1.Pod{newPod("liqo-milan", corev1.PodRunning, rl("cpu", "3", "memory", "4Gi")), newPod("worker", corev1.PodRunning, rl("cpu", "60"))},
			wantCPU: "9", wantMem: "20Gi", wantNodes: []string{"liqo-milan", "liqo-turin"}},
		{name: "no provider: nothing to offer",
			nodes:   []corev1.Node{physical},
			wantCPU: "0", wantMem: "0", wantNodes: nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			free := ResellableFree(tc.nodes, tc.pods, "rome-id")
			g.Expect(free.Cpu().String()).To(Equal(tc.wantCPU))
			g.Expect(free.Memory().String()).To(Equal(tc.wantMem))
			g.Expect(ResellableNodes(tc.nodes, "rome-id")).To(Equal(tc.wantNodes))
		})
	}
}

// Three brokers in a ring (a sells to b, b to c, c to a), each with a
// provider of its own: without the brokered rule each offer would carry the
// previous one and grow every round. With it each resells its provider only.
func TestResellableFreeDoesNotInflateAroundARing(t *testing.T) {
	g := NewWithT(t)
	aNodes := []corev1.Node{newNode("liqo-milan", rl("cpu", "8"), providedBy("milan-id")), newNode("liqo-c", nil, providedBy("c-id"), brokered)}
	bNodes := []corev1.Node{newNode("liqo-turin", rl("cpu", "4"), providedBy("turin-id")), newNode("liqo-a", nil, providedBy("a-id"), brokered)}
	cNodes := []corev1.Node{newNode("liqo-genoa", rl("cpu", "2"), providedBy("genoa-id")), newNode("liqo-b", nil, providedBy("b-id"), brokered)}
	for round := 0; round < 3; round++ {
		toB := ResellableFree(aNodes, nil, "b-id")
		toC := ResellableFree(bNodes, nil, "c-id")
		toA := ResellableFree(cNodes, nil, "a-id")
		bNodes[1].Status.Allocatable, cNodes[1].Status.Allocatable, aNodes[1].Status.Allocatable = toB, toC, toA
		g.Expect(toB.Cpu().String()).To(Equal("8"), "round %d", round)
		g.Expect(toC.Cpu().String()).To(Equal("4"), "round %d", round)
		g.Expect(toA.Cpu().String()).To(Equal("2"), "round %d", round)
	}
}
