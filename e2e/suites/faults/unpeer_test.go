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
	"path/filepath"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
)

// Issue 13, spec 5, mid-unpeer. rome's ForeignCluster for milan is deleted
// while a budget holds the evictions, and rome's manager is restarted: the
// new process has no session for milan, and without one nothing deletes an
// evicted pod's remote copy, so its local pod would stay Terminating and the
// finalizer would never complete. The spec ends by peering again from
// clusters/, as the other specs expect to find milan.
var _ = Describe("unpeering milan while pods run there", func() {
	It("completes the ForeignCluster's finalizer across a restart of rome's manager, handing every pod back", func(ctx context.Context) {
		ns := "unpeer-restart"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy)
		web := deployment(ns, "web", 2)
		Expect(romeC.Create(ctx, web)).To(Succeed())
		pdb := noDisruptionBudget(ns, "web")
		Expect(romeC.Create(ctx, pdb)).To(Succeed())
		var before Census
		Eventually(func(g Gomega) {
			before = census(ctx, g, ns, ns)
			pwExpectMatched(g, before, 2)
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
		DeferCleanup(peerAgain, web)

		fc := &discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: "milan"}}
		Expect(romeC.Delete(ctx, fc)).To(Succeed())
		start := time.Now()
		Eventually(func(g Gomega) {
			got := &discoveryv1alpha1.ForeignCluster{}
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), got)).To(Succeed())
			g.Expect(conditions.GetMessage(got, meta.ReadyCondition)).To(And(ContainSubstring("2 pod(s) still to evict"),
				ContainSubstring("refused by a PodDisruptionBudget: The disruption budget web")))
		}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "the unpeer waits on the budget")
		c := census(ctx, Default, ns, ns)
		pwExpectMatched(Default, c, 2)
		Expect(c.remoteUIDs()).To(Equal(before.remoteUIDs()), "the budget held: no pod left milan")

		restartManager(ctx, rome)
		Expect(romeC.Delete(ctx, pdb)).To(Succeed())
		Eventually(func(g Gomega) {
			c := census(ctx, g, ns, ns)
			g.Expect(c.Terminating).To(BeZero(), "no pod stuck Terminating")
			for name, p := range c.Local {
				g.Expect(before.Local).NotTo(HaveKey(name), "pod %s was handed back and replaced", name)
				g.Expect(p.Spec.NodeName).To(BeEmpty(), "replacement %s waits for a virtual node", name)
			}
			g.Expect(c.Shadows).To(BeEmpty(), "milan keeps no ShadowPod")
			g.Expect(c.Remote).To(BeEmpty(), "milan keeps no pod")
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{}))).To(BeTrue(), "the virtual node is gone")
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKeyFromObject(fc), &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue(), "the ForeignCluster's finalizer completed")
		}).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(2 * time.Second).Should(Succeed())
		GinkgoWriter.Printf("unpeered %s after the ForeignCluster was deleted, budget hold and manager restart included\n", time.Since(start).Round(time.Second))
		AddReportEntry("unpeer across a manager restart: from delete to finalizer done", time.Since(start).Round(time.Second).String())
	}, SpecTimeout(8*time.Minute))
})

// peerAgain scales web to nothing, so its Pending replacements do not go
// back to milan, and applies rome's ForeignCluster from clusters/ again,
// waiting for liqo-milan to be Ready, so the specs after this one find the
// peering the suite started with.
func peerAgain(ctx context.Context, web *appsv1.Deployment) {
	pwScale(ctx, web.Namespace, web.Name, 0)
	objs, err := framework.Build(filepath.Join(repoRoot, "clusters", "rome", "config"))
	Expect(err).NotTo(HaveOccurred())
	var fcs []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == "ForeignCluster" {
			fcs = append(fcs, o)
		}
	}
	Expect(fcs).NotTo(BeEmpty())
	Eventually(func(g Gomega) {
		err := romeC.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{})
		g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the old ForeignCluster is gone before it is applied again")
	}).WithContext(ctx).WithTimeout(3 * time.Minute).Should(Succeed())
	Expect(framework.Apply(ctx, rome, fcs)).To(Succeed())
	ready, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	Expect(framework.Poll(ready, func(ctx context.Context) error { return framework.NodeReady(ctx, romeC, "liqo-milan") })).To(Succeed(), "liqo-milan Ready again")
}
