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

package virtualnode

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
)

// offloadedPod is boundPod with what the pod webhook sets on every pod it
// places, and an empty security context, decoded afresh for each pod.
func offloadedPod(name, uid string) *corev1.Pod {
	return boundPod(func(p *corev1.Pod) {
		p.Name, p.UID = name, types.UID("uid-"+uid)
		p.Spec.SecurityContext = &corev1.PodSecurityContext{}
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: "liqo.io/type", Operator: corev1.NodeSelectorOpIn, Values: []string{"virtual-node"}}}}}}}}
	})
}

func TestPodsWithTheSameAffinityTolerationsAndSecurityContextShareOneCopy(t *testing.T) {
	g := NewWithT(t)
	v := &PodVersions{}
	v.Hold(toolscache.NewStore(toolscache.MetaNamespaceKeyFunc))
	a, err := v.Transform(offloadedPod("web-0", "0"))
	g.Expect(err).NotTo(HaveOccurred())
	b, err := v.Transform(offloadedPod("web-1", "1"))
	g.Expect(err).NotTo(HaveOccurred())
	first, second := a.(*corev1.Pod), b.(*corev1.Pod)
	g.Expect(second.Spec.Affinity).To(BeIdenticalTo(first.Spec.Affinity))
	g.Expect(sameBacking(first.Spec.Tolerations, second.Spec.Tolerations)).To(BeTrue())
	g.Expect(second.Spec.SecurityContext).To(BeIdenticalTo(first.Spec.SecurityContext))
	g.Expect(sameBacking(first.Spec.Containers, second.Spec.Containers)).To(BeFalse(), "only those parts are shared")

	// A pod whose parts differ keeps its own.
	c, err := v.Transform(boundPod(func(p *corev1.Pod) {
		p.Name, p.UID = "web-2", "uid-2"
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists})
		p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: new(bool)}
	}))
	g.Expect(err).NotTo(HaveOccurred())
	third := c.(*corev1.Pod)
	g.Expect(sameBacking(first.Spec.Tolerations, third.Spec.Tolerations)).To(BeFalse())
	g.Expect(third.Spec.Tolerations).To(HaveLen(2))
	g.Expect(third.Spec.SecurityContext).NotTo(BeIdenticalTo(first.Spec.SecurityContext))
	g.Expect(third.Spec.SecurityContext.RunAsNonRoot).NotTo(BeNil())
	g.Expect(third.Spec.Affinity).To(BeNil())
}

// Equal means identical: an affinity that differs only in a value's order is
// another affinity.
func TestPartsAreSharedOnlyWhenTheirEncodingsAreEqual(t *testing.T) {
	g := NewWithT(t)
	pp := &podParts{}
	one := &corev1.PodSpec{Affinity: offloadedPod("a", "a").Spec.Affinity}
	two := &corev1.PodSpec{Affinity: offloadedPod("b", "b").Spec.Affinity}
	two.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"virtual-node", "edge"}
	three := &corev1.PodSpec{Affinity: offloadedPod("c", "c").Spec.Affinity}
	three.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values = []string{"edge", "virtual-node"}
	for _, s := range []*corev1.PodSpec{one, two, three} {
		pp.share(s)
	}
	g.Expect(two.Affinity).NotTo(BeIdenticalTo(one.Affinity))
	g.Expect(three.Affinity).NotTo(BeIdenticalTo(two.Affinity))
	g.Expect(three.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions[0].Values).
		To(Equal([]string{"edge", "virtual-node"}), "each pod keeps what it was decoded with")
}

// A table full of parts no pod repeats starts over: bounded, and the parts
// already shared stay with their pods.
func TestThePartsTableIsBounded(t *testing.T) {
	g := NewWithT(t)
	pp := &podParts{}
	kept := &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{}}
	pp.share(kept)
	for i := range maxPodParts + 10 {
		pp.share(&corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{RunAsUser: ptrTo(int64(i + 1))}})
	}
	g.Expect(len(pp.parts)).To(BeNumerically("<=", maxPodParts))
	g.Expect(kept.SecurityContext).NotTo(BeNil())
	again := &corev1.PodSpec{SecurityContext: &corev1.PodSecurityContext{}}
	pp.share(again)
	g.Expect(again.SecurityContext).NotTo(BeNil())
	g.Expect(*again.SecurityContext).To(Equal(corev1.PodSecurityContext{}))
}

func ptrTo[T any](v T) *T { return &v }
