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
	"fmt"
	"math/rand/v2"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// randomQuantity is a request or allocatable amount in one of the forms
// pods and nodes use: millicores, binary and decimal suffixes, plain counts.
func randomQuantity(rng *rand.Rand, name corev1.ResourceName) resource.Quantity {
	switch name {
	case corev1.ResourceCPU:
		return *resource.NewMilliQuantity(rng.Int64N(4000), resource.DecimalSI)
	case corev1.ResourceMemory:
		if rng.IntN(2) == 0 {
			return *resource.NewQuantity(rng.Int64N(8)<<30, resource.BinarySI)
		}
		return resource.MustParse(fmt.Sprintf("%dM", rng.IntN(3000)))
	default:
		return *resource.NewQuantity(rng.Int64N(3), resource.DecimalSI)
	}
}

var randomResourceNames = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, "nvidia.com/gpu", corev1.ResourceEphemeralStorage}

func randomList(rng *rand.Rand) corev1.ResourceList {
	out := corev1.ResourceList{}
	for _, name := range randomResourceNames {
		if rng.IntN(2) == 0 {
			out[name] = randomQuantity(rng, name)
		}
	}
	return out
}

func randomContainers(rng *rand.Rand, prefix string, n int) []corev1.Container {
	out := make([]corev1.Container, n)
	for i := range out {
		out[i] = corev1.Container{Name: fmt.Sprintf("%s%d", prefix, i),
			Resources: corev1.ResourceRequirements{Requests: randomList(rng), Limits: randomList(rng)}}
	}
	return out
}

// randomPod is a pod with whatever FreeAllocatable looks at drawn at random:
// node (none, an unknown one, or one of nodes), phase, containers, init
// containers (some of them sidecars), overhead, and limits without requests.
func randomPod(rng *rand.Rand, nodes []string) corev1.Pod {
	p := corev1.Pod{}
	if k := rng.IntN(len(nodes) + 2); k < len(nodes) {
		p.Spec.NodeName = nodes[k]
	} else if k == len(nodes) {
		p.Spec.NodeName = "gone"
	}
	p.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown, ""}[rng.IntN(6)]
	p.Spec.Containers = randomContainers(rng, "c", 1+rng.IntN(3))
	p.Spec.InitContainers = randomContainers(rng, "i", rng.IntN(3))
	always := corev1.ContainerRestartPolicyAlways
	for i := range p.Spec.InitContainers {
		if rng.IntN(3) == 0 {
			p.Spec.InitContainers[i].RestartPolicy = &always
		}
	}
	if rng.IntN(3) == 0 {
		p.Spec.Overhead = randomList(rng)
	}
	return p
}

func randomNodes(rng *rand.Rand, consumerID string) []corev1.Node {
	var nodes []corev1.Node
	for i := range 2 + rng.IntN(5) {
		alloc := randomList(rng)
		if rng.IntN(4) != 0 {
			alloc[corev1.ResourcePods] = *resource.NewQuantity(rng.Int64N(20), resource.DecimalSI)
		}
		n := newNode(fmt.Sprintf("n%d", i), alloc)
		switch rng.IntN(6) {
		case 0:
			notReady(&n)
		case 1:
			cordoned(&n)
		case 2, 3:
			virtual(&n)
			n.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel] = []string{consumerID, "milan-id", "turin-id"}[rng.IntN(3)]
			if rng.IntN(4) == 0 {
				n.Labels[virtualkubeletv1alpha1.BrokeredLabel] = "true"
			}
		}
		nodes = append(nodes, n)
	}
	return nodes
}

// sameList fails unless a and b hold the same resources with equal amounts.
func sameList(g Gomega, got, want corev1.ResourceList, what string) {
	g.Expect(got).To(HaveLen(len(want)), what)
	for name, q := range want {
		gq, ok := got[name]
		g.Expect(ok).To(BeTrue(), "%s: %s missing", what, name)
		g.Expect(gq.Cmp(q)).To(Equal(0), "%s: %s is %s, want %s", what, name, gq.String(), q.String())
	}
}

// The per-node sums must give exactly what the pod-by-pod functions give, on
// any pods: this is what lets the controller read a count instead of a list.
func TestFreeFromNodeSumsEqualsFreeFromPods(t *testing.T) {
	g := NewWithT(t)
	rng := rand.New(rand.NewPCG(17, 12))
	for round := range 2000 {
		nodes := randomNodes(rng, "rome-id")
		names := make([]string, len(nodes))
		for i := range nodes {
			names[i] = nodes[i].Name
		}
		pods := make([]corev1.Pod, rng.IntN(30))
		for i := range pods {
			pods[i] = randomPod(rng, names)
		}
		used := UsageByNode(pods)
		resold := func(n *corev1.Node) bool { return resellable(n, "rome-id") }
		sameList(g, FreeAllocatableUsing(nodes, used), freeOnPodByPod(nodes, pods, physicalNodeCounts), fmt.Sprintf("round %d, FreeAllocatable", round))
		sameList(g, ResellableFreeUsing(nodes, used, "rome-id"), freeOnPodByPod(nodes, pods, resold), fmt.Sprintf("round %d, ResellableFree", round))
	}
}

// freeOnPodByPod is the offer computed pod by pod, as it was before the
// per-node sums: an implementation apart from them, for the equality test.
// It sums the allocatable of the nodes counts accepts and subtracts the
// requests (and one pod slot) of each pod bound to one of them.
func freeOnPodByPod(nodes []corev1.Node, pods []corev1.Pod, counts func(*corev1.Node) bool) corev1.ResourceList {
	free, counted := allocatableOf(nodes, counts)
	for i := range pods {
		p := &pods[i]
		if !counted[p.Spec.NodeName] || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		for name, q := range resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{}) {
			if sum, ok := free[name]; ok {
				sum.Sub(q)
				free[name] = sum
			}
		}
		if sum, ok := free[corev1.ResourcePods]; ok {
			sum.Sub(*resource.NewQuantity(1, resource.DecimalSI))
			free[corev1.ResourcePods] = sum
		}
	}
	floorAtZero(free)
	return free
}

func TestPodHoldFollowsFreeAllocatable(t *testing.T) {
	g := NewWithT(t)
	running := newPod("a", corev1.PodRunning, rl("cpu", "1"))
	node, requests, holds := PodHold(&running)
	g.Expect(holds).To(BeTrue())
	g.Expect(node).To(Equal("a"))
	g.Expect(requests.Cpu().String()).To(Equal("1"))
	for _, p := range []corev1.Pod{newPod("", corev1.PodPending, rl("cpu", "1")), newPod("a", corev1.PodSucceeded, rl("cpu", "1")), newPod("a", corev1.PodFailed, rl("cpu", "1"))} {
		_, _, holds := PodHold(&p)
		g.Expect(holds).To(BeFalse(), "unbound or done: %q %s", p.Spec.NodeName, p.Status.Phase)
	}
}

func TestNodeUsageRemoveUndoesAdd(t *testing.T) {
	g := NewWithT(t)
	var u NodeUsage
	u.Add(rl("cpu", "1", "memory", "1Gi"))
	u.Add(rl("cpu", "500m"))
	u.Remove(rl("cpu", "1", "memory", "1Gi"))
	g.Expect(u.Pods).To(Equal(int64(1)))
	g.Expect(u.Requests).To(HaveLen(1), "a resource summed back to zero is dropped")
	g.Expect(u.Requests.Cpu().String()).To(Equal("500m"))
}
