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

package gitops_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/fluxcd/pkg/ssa"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/webhooks"
	"github.com/spillway-dev/spillway/webhooks/twinobjects"
)

// uninstallSpec: the webhook configurations, and the twins' EndpointSlice
// policy and its binding, are published by the manager, not applied by Flux;
// they must still go when Flux prunes the install, or the Fail-policy pod
// webhook outlives its server and blocks every pod of the offloaded
// namespaces. It runs last in the fleet's ordered container, once
// Flux has reconciled every layer, so Flux takes the install's reconcile
// request at once and no fleet spec sees the prune.
func uninstallSpec() {
	configurations := func() []client.Object {
		return []client.Object{
			&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: webhooks.MutatingConfigurationName}},
			&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: webhooks.ValidatingConfigurationName}},
			&admissionregistrationv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: twinobjects.SlicePolicyName}},
			&admissionregistrationv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: twinobjects.SlicePolicyName}},
		}
	}
	expectOwnedBy := func(g Gomega, ctx context.Context, uid any) {
		for _, o := range configurations() {
			g.Expect(milanC.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
			g.Expect(o.GetOwnerReferences()).To(ConsistOf(And(HaveField("Kind", "ClusterRole"),
				HaveField("Name", "spillway-controller"), HaveField("UID", uid))), "%T %s", o, o.GetName())
		}
	}

	It("deletes the webhook configurations when Flux prunes the install's cluster-scoped objects, and republishes them when it is applied again", func(ctx context.Context) {
		role := &rbacv1.ClusterRole{}
		Expect(milanC.Get(ctx, client.ObjectKey{Name: "spillway-controller"}, role)).To(Succeed())
		Eventually(func(g Gomega) { expectOwnedBy(g, ctx, role.UID) }).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		// What Flux's prune deletes of the install and needs no namespace:
		// the ClusterRole and its binding. The namespaced rest stays so the
		// suite's other specs keep their manager.
		install := layerObjects("milan", "install")
		pruned := slices.DeleteFunc(deepCopies(install), func(o *unstructured.Unstructured) bool {
			return o.GetKind() != "ClusterRole" && o.GetKind() != "ClusterRoleBinding"
		})
		Expect(pruned).To(ContainElement(HaveField("Object", HaveKeyWithValue("kind", "ClusterRole"))))
		// Flux must not put them back before the garbage collector runs:
		// suspend the install, as an operator would before removing it.
		suspendInstall := func(ctx context.Context, v bool) {
			ks, err := framework.Kustomization(ctx, milanC, "spillway-install")
			Expect(err).NotTo(HaveOccurred())
			Expect(milanC.Patch(ctx, ks, client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"suspend":%t}}`, v))))).To(Succeed())
		}
		suspendInstall(ctx, true)
		DeferCleanup(func(ctx context.Context) { suspendInstall(ctx, false) })
		rm := resourceManager(milan)
		start := time.Now()
		_, err := rm.DeleteAll(ctx, pruned, ssa.DefaultDeleteOptions())
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			for _, o := range configurations() {
				err := milanC.Get(ctx, client.ObjectKeyFromObject(o), o)
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "%T %s: %v", o, o.GetName(), err)
			}
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
		GinkgoWriter.Printf("webhook configurations garbage-collected %s after the prune\n", time.Since(start).Round(100*time.Millisecond))
		AddReportEntry("webhook configurations gone after the prune in", time.Since(start).Round(100*time.Millisecond).String())

		// Flux applies the install again (as after a revert in git). Not the
		// suite's own apply: another field manager would make Flux's next
		// reconcile report every object configured, which the fleet specs,
		// run in any order, count as drift.
		suspendInstall(ctx, false)
		reconcile(ctx, milanC, framework.KustomizationGVK, "spillway-install")
		Expect(milanC.Get(ctx, client.ObjectKey{Name: "spillway-controller"}, role)).To(Succeed())
		Eventually(func(g Gomega) { expectOwnedBy(g, ctx, role.UID) }).WithContext(ctx).WithTimeout(time.Minute).
			Should(Succeed(), "the running manager republishes them, owned by the new ClusterRole, at its next check")

		// The slice policy came back with them: one check later it is in
		// force and the webhook lets go of the slices (webhooks/owner.go).
		Eventually(func(g Gomega) {
			v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Name: webhooks.ValidatingConfigurationName}, v)).To(Succeed())
			g.Expect(v.Webhooks).To(ContainElement(And(HaveField("Name", "twinobjects.spillway.liqo.io"),
				HaveField("Rules", Not(ContainElement(HaveField("Rule.Resources", ContainElement("endpointslices"))))))))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		// Republishing every check (2 s here) writes nothing once they are right.
		versions := func() []string {
			var out []string
			for _, o := range configurations() {
				Expect(milanC.Get(ctx, client.ObjectKeyFromObject(o), o)).To(Succeed())
				out = append(out, o.GetResourceVersion())
			}
			return out
		}
		before := versions()
		Consistently(versions).WithTimeout(6*time.Second).WithPolling(time.Second).Should(Equal(before),
			"the configurations were rewritten although nothing changed")
	}, SpecTimeout(4*time.Minute))
}
