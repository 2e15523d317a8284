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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

var _ = Describe("admission", func() {
	It("rejects a change of the mapping strategy with a message naming the field", func(ctx context.Context) {
		const ns = "immutable"
		offload(ctx, ns, offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, region("south"))
		no := &offloadingv1alpha1.NamespaceOffloading{}
		Expect(veniceC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "offloading"}, no)).To(Succeed())
		no.Spec.NamespaceMappingStrategy = offloadingv1alpha1.DefaultNameMappingStrategy
		err := veniceC.Update(ctx, no)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.namespaceMappingStrategy"))
	}, SpecTimeout(time.Minute))

	It("denies, on the provider, a ShadowPod beyond the consumer's offer", func(ctx context.Context) {
		const ns = "quota"
		offload(ctx, ns, offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, region("south"))
		greedy := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "greedy"},
			Spec: virtualkubeletv1alpha1.ShadowPodSpec{Pod: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}}}}}}}
		err := naplesC.Create(ctx, greedy)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("does not fit ResourceOffer liqo/venice"))
		Expect(err.Error()).To(MatchRegexp(`missing cpu \d+`))

		modest := greedy.DeepCopy()
		modest.Name, modest.Spec.Pod.Containers[0].Resources.Requests[corev1.ResourceCPU] = "modest", resource.MustParse("100m")
		Expect(naplesC.Create(ctx, modest)).To(Succeed(), "within the offer")
	}, SpecTimeout(time.Minute))
})
