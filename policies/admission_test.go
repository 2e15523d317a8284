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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func offloading(mutate ...func(*offloadingv1alpha1.NamespaceOffloading)) *offloadingv1alpha1.NamespaceOffloading {
	no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: "liqo-demo"}}
	for _, m := range mutate {
		m(no)
	}
	return no
}

func withMapping(s offloadingv1alpha1.NamespaceMappingStrategy) func(*offloadingv1alpha1.NamespaceOffloading) {
	return func(no *offloadingv1alpha1.NamespaceOffloading) { no.Spec.NamespaceMappingStrategy = s }
}

func withPods(s offloadingv1alpha1.PodOffloadingStrategy) func(*offloadingv1alpha1.NamespaceOffloading) {
	return func(no *offloadingv1alpha1.NamespaceOffloading) { no.Spec.PodOffloadingStrategy = s }
}

func TestAdmitOffloadingDeniesAMappingStrategyChangeNamingTheField(t *testing.T) {
	g := NewWithT(t)
	v := AdmitOffloading(offloading(), offloading(withMapping(offloadingv1alpha1.EnforceSameNameMappingStrategy)))
	g.Expect(v.Allowed()).To(BeFalse())
	g.Expect(v.Denied[0]).To(ContainSubstring("spec.namespaceMappingStrategy cannot change (DefaultName → EnforceSameName): it is immutable"))
	g.Expect(AdmitOffloading(offloading(), offloading(withMapping(offloadingv1alpha1.DefaultNameMappingStrategy))).Allowed()).
		To(BeTrue(), "unset and DefaultName are the same strategy")
}

func TestAdmitOffloadingDeniesAnotherName(t *testing.T) {
	g := NewWithT(t)
	v := AdmitOffloading(nil, offloading(func(no *offloadingv1alpha1.NamespaceOffloading) { no.Name = "mine" }))
	g.Expect(v.Denied).To(ConsistOf(ContainSubstring(`metadata.name "mine"`)))
}

func TestAdmitOffloadingDeniesAnInvalidSelector(t *testing.T) {
	g := NewWithT(t)
	bad := func(no *offloadingv1alpha1.NamespaceOffloading) {
		no.Spec.ClusterSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.liqo.io/region", Operator: corev1.NodeSelectorOpIn}}}}}
	}
	v := AdmitOffloading(nil, offloading(bad))
	g.Expect(v.Denied).To(ConsistOf(ContainSubstring("spec.clusterSelector")))
}

func TestAdmitOffloadingWarnsWhenThePodStrategyBecomesStricter(t *testing.T) {
	g := NewWithT(t)
	v := AdmitOffloading(offloading(), offloading(withPods(offloadingv1alpha1.RemotePodOffloadingStrategy)))
	g.Expect(v.Allowed()).To(BeTrue())
	g.Expect(v.Warnings).To(ConsistOf(ContainSubstring("pods already running are not evicted")))
	relaxed := AdmitOffloading(offloading(withPods(offloadingv1alpha1.LocalPodOffloadingStrategy)), offloading())
	g.Expect(relaxed.Warnings).To(BeEmpty())
}

func TestStricterPodStrategy(t *testing.T) {
	const lr, l, r = offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, offloadingv1alpha1.LocalPodOffloadingStrategy, offloadingv1alpha1.RemotePodOffloadingStrategy
	cases := []struct {
		before, after offloadingv1alpha1.PodOffloadingStrategy
		want          bool
	}{{lr, l, true}, {lr, r, true}, {l, r, true}, {r, l, true}, {l, lr, false}, {r, lr, false}, {l, l, false}}
	for _, c := range cases {
		if got := StricterPodStrategy(c.before, c.after); got != c.want {
			t.Errorf("StricterPodStrategy(%s, %s) = %t, want %t", c.before, c.after, got, c.want)
		}
	}
}
