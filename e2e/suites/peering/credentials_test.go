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

package peering_test

import (
	"context"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
)

// refusesUnsafeCredentials registers, inside the ordered peering container
// (milan's peering is Ready), the specs of credentials that would make the
// manager run a command or read its own token from disk. External Secrets
// keeps milan-credentials true to the store (it reverts edits), so the spec
// points the ForeignCluster at a second Secret, then back at git's.
func refusesUnsafeCredentials() {
	for _, tc := range []struct{ field, line string }{
		{"exec", "    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, 'touch /tmp/spillway-owned']}"},
		{"tokenFile", "    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"},
	} {
		It("refuses a kubeconfig with "+tc.field+" as InvalidCredentials naming the field, and heals when the Secret is restored", func(ctx context.Context) {
			good := &corev1.Secret{}
			Expect(milanC.Get(ctx, identity, good)).To(Succeed())
			kc := string(good.Data[sharingv1alpha1.IdentityKubeconfigKey])
			Expect(kc).To(ContainSubstring("    token: "))
			unsafe := client.ObjectKey{Namespace: "liqo", Name: "milan-unsafe"}
			data := map[string][]byte{}
			for k, v := range good.Data {
				data[k] = v
			}
			data[sharingv1alpha1.IdentityKubeconfigKey] = []byte(strings.Replace(kc, "    token: ", tc.line+"\n    token: ", 1))
			Expect(romeC.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: unsafe.Namespace, Name: unsafe.Name}, Data: data})).To(Succeed())
			DeferCleanup(func(ctx context.Context) {
				Expect(client.IgnoreNotFound(romeC.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: unsafe.Namespace, Name: unsafe.Name}}))).To(Succeed())
			})
			fc := only(romeConfig, "ForeignCluster")[0].DeepCopy()
			Expect(unstructured.SetNestedField(fc.Object, unsafe.Name, "spec", "credentialsSecretRef", "name")).To(Succeed())
			Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{fc})).To(Succeed())

			Eventually(func(g Gomega) {
				fc := fcNamed("milan")
				g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
				ready := readyCondition(fc)
				g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(ready.Reason).To(Equal(discoveryv1alpha1.InvalidCredentialsReason))
				g.Expect(ready.Message).To(And(ContainSubstring(unsafe.String()), ContainSubstring(`key "kubeconfig"`),
					ContainSubstring(".user."+tc.field+" is not allowed"), ContainSubstring("use a token")))
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
			Expect(nodeExists(ctx, "liqo-milan")).To(BeTrue(), "refused credentials never delete the node")
			Expect(rome.ExtraRunning(framework.ManagerProcess)).To(BeTrue())

			// git's ForeignCluster again, reading the Secret External Secrets fills.
			Expect(framework.Apply(ctx, rome, only(romeConfig, "ForeignCluster"))).To(Succeed())
			Eventually(func(g Gomega) {
				fc := fcNamed("milan")
				g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
				g.Expect(readyCondition(fc).Status).To(Equal(metav1.ConditionTrue))
				g.Expect(nodeReady(ctx)).To(Equal(corev1.ConditionTrue))
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		}, SpecTimeout(2*time.Minute))
	}
}
