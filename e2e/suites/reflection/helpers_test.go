//go:build e2e

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

package reflection_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func region(values ...string) *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.liqo.io/region", Operator: corev1.NodeSelectorOpIn, Values: values}}}}}
}

// offload extends ns as `spillway offload namespace` would commit it, and
// waits until its twins are Ready.
func offload(ctx context.Context, ns string, pods offloadingv1alpha1.PodOffloadingStrategy, selector *corev1.NodeSelector) {
	GinkgoHelper()
	Expect(client.IgnoreAlreadyExists(veniceC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{offloadingv1alpha1.SchedulingEnabledLabel: "true"}}}))).To(Succeed())
	Expect(veniceC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: ns},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.EnforceSameNameMappingStrategy,
			PodOffloadingStrategy: pods, ClusterSelector: selector},
	})).To(Succeed())
	Eventually(func(g Gomega) {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		g.Expect(veniceC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "offloading"}, no)).To(Succeed())
		g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// deployment has no toleration and no placement of its own beyond what mutate adds.
func deployment(ns, name string, replicas int32, mutate ...func(*corev1.PodSpec)) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	spec := corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(int64(2)),
		Containers: []corev1.Container{{Name: "web", Image: "nginx", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}}}}}
	for _, m := range mutate {
		m(&spec)
	}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: spec}}}
}

// onVirtualNodes is the affinity the seed's examples write to prefer offloading.
func onVirtualNodes(spec *corev1.PodSpec) {
	spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "liqo.io/type", Operator: corev1.NodeSelectorOpIn, Values: []string{"virtual-node"}}}}}}}}
}

func runningPods(ctx context.Context, g Gomega, c client.Client, ns, app string) []corev1.Pod {
	list := &corev1.PodList{}
	g.Expect(c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app": app})).To(Succeed())
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			out = append(out, p)
		}
	}
	return out
}
