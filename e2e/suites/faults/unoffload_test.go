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

package faults_test

import (
	"context"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// Issue 13, spec 4. A Remote-strategy Deployment runs on milan under a
// PodDisruptionBudget that allows no disruption. Deleting the namespace's
// NamespaceOffloading evicts through the Eviction API: while the budget
// refuses, nothing moves and the status names the budget; pods created
// meanwhile stay in rome, and rome's manager is restarted (spec 5). Once the
// budget allows one disruption at a time, the pods come back to rome, milan
// keeps nothing, and the namespace admits new pods again.
var _ = Describe("unoffloading a Remote-strategy namespace guarded by a PodDisruptionBudget", func() {
	It("honours the budget, brings every pod back to rome, and admits new pods during and after", func(ctx context.Context) {
		ns := "unoffload-pdb"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy)
		web := deployment(ns, "web", 3)
		// No placement of its own: the pod webhook places it while the
		// namespace is offloaded, and must stop doing so once it is not.
		web.Spec.Template.Spec.Tolerations, web.Spec.Template.Spec.Affinity = nil, nil
		Expect(romeC.Create(ctx, web)).To(Succeed())
		pdb := noDisruptionBudget(ns, "web")
		Expect(romeC.Create(ctx, pdb)).To(Succeed())
		var before Census
		Eventually(func(g Gomega) {
			before = census(ctx, g, ns, ns)
			pwExpectMatched(g, before, 3)
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())

		no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: offloadingv1alpha1.RequiredName}}
		Expect(romeC.Delete(ctx, no)).To(Succeed())
		start := time.Now()
		Eventually(func(g Gomega) {
			got := &offloadingv1alpha1.NamespaceOffloading{}
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(no), got)).To(Succeed())
			g.Expect(conditions.GetMessage(got, meta.ReadyCondition)).To(And(
				ContainSubstring("refused by a PodDisruptionBudget"), ContainSubstring("disruption budget web")))
		}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "the status names the budget that holds the unoffload")
		Consistently(func(g Gomega) {
			c := census(ctx, g, ns, ns)
			pwExpectMatched(g, c, 3)
			g.Expect(c.remoteUIDs()).To(Equal(before.remoteUIDs()), "no remote pod was removed against the budget")
		}).WithContext(ctx).WithTimeout(10 * time.Second).WithPolling(time.Second).Should(Succeed())

		// Spec 5, mid-unoffload: the finalizer is a fact in the API server,
		// not a state of the process, so a new manager takes the unoffload on.
		restartManager(ctx, rome)

		// Placement stops once unoffloading starts: a pod created now runs here.
		during := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "during"},
			Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(int64(2)), Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
		Expect(romeC.Create(ctx, during)).To(Succeed(), "a pod created while the namespace is unoffloaded is admitted")
		expectRunningLocally(ctx, ns, during.Name)

		// One disruption at a time: each replacement must be ready in rome
		// before the next pod leaves milan.
		base := pdb.DeepCopy()
		pdb.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		Expect(romeC.Patch(ctx, pdb, client.MergeFrom(base))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKeyFromObject(no), &offloadingv1alpha1.NamespaceOffloading{}))).To(BeTrue(), "the NamespaceOffloading is gone")
			c := census(ctx, g, ns, ns)
			g.Expect(c.Terminating).To(BeZero(), "no pod Terminating")
			g.Expect(c.Local).To(HaveLen(4), "3 web pods and the pod created during the unoffload")
			g.Expect(c.Running).To(Equal(4))
			for name, p := range c.Local {
				g.Expect(p.Spec.NodeName).NotTo(Equal("liqo-milan"), "pod %s runs in rome", name)
			}
			g.Expect(c.Shadows).To(BeEmpty(), "milan keeps no ShadowPod")
			g.Expect(c.Remote).To(BeEmpty(), "milan keeps no pod")
		}).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
		GinkgoWriter.Printf("unoffloaded %s after the NamespaceOffloading was deleted, budget hold and manager restart included\n", time.Since(start).Round(time.Second))
		AddReportEntry("unoffload under a PodDisruptionBudget: from delete to converged", time.Since(start).Round(time.Second).String())

		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(milanC.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}))).To(BeTrue(), "milan removed the twin namespace")
			local := &corev1.Namespace{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Name: ns}, local)).To(Succeed())
			g.Expect(local.Labels).NotTo(HaveKey(offloadingv1alpha1.SchedulingEnabledLabel), "the scheduling label the controller set is gone")
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		after := during.DeepCopy()
		after.ObjectMeta = metav1.ObjectMeta{Namespace: ns, Name: "after"}
		Expect(romeC.Create(ctx, after)).To(Succeed(), "a pod of the unoffloaded namespace is admitted")
		expectRunningLocally(ctx, ns, after.Name)
	}, SpecTimeout(6*time.Minute))
})

// expectRunningLocally waits until pod name of ns is Running on one of rome's
// own nodes.
func expectRunningLocally(ctx context.Context, ns, name string) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		p := &corev1.Pod{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p)).To(Succeed())
		g.Expect(p.Spec.NodeName).NotTo(BeEmpty())
		g.Expect(p.Spec.NodeName).NotTo(Equal("liqo-milan"))
		g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning))
	}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "pod %s/%s Running in rome", ns, name)
}

// noDisruptionBudget guards the pods labelled app=app in ns and allows no
// disruption at all: every eviction of them is refused.
func noDisruptionBudget(ns, app string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromInt32(0)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	}
}
