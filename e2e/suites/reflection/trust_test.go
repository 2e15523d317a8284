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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/serviceaccount"
)

var _ = Describe("the trust boundary between clusters", Ordered, func() {
	const ns = "trust"
	tokenKey := client.ObjectKey{Namespace: ns, Name: serviceaccount.SecretName("default")}
	BeforeAll(func(ctx context.Context) {
		offload(ctx, ns, offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, region("south"))
		Expect(veniceC.Create(ctx, deployment(ns, "web", 1, onVirtualNodes))).To(Succeed())
		Eventually(func() error { return naplesC.Get(ctx, tokenKey, &corev1.Secret{}) }).
			WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}, NodeTimeout(90*time.Second))

	It("keeps the manager up when a user's Secret named x carries the token label", func(ctx context.Context) {
		x := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x", Labels: map[string]string{serviceaccount.TokenLabel: "true"}},
			StringData: map[string]string{"k": "v"}}
		Expect(veniceC.Create(ctx, x)).To(Succeed())
		Eventually(func(g Gomega) {
			got := &corev1.Secret{}
			g.Expect(naplesC.Get(ctx, client.ObjectKeyFromObject(x), got)).To(Succeed())
			g.Expect(got.Labels).NotTo(HaveKey(serviceaccount.TokenLabel), "the label is the token reflector's alone")
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		// A pod change makes the token reflector look at the twin's Secrets at once.
		pods := &corev1.PodList{}
		Expect(veniceC.List(ctx, pods, client.InNamespace(ns), client.MatchingLabels{"app": "web"})).To(Succeed())
		Expect(pods.Items).NotTo(BeEmpty())
		nudge := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"annotations":{"trust.spillway.dev/nudge":"1"}}}`))
		Expect(veniceC.Patch(ctx, &pods.Items[0], nudge)).To(Succeed())

		after := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "after-x"}, Data: map[string]string{"k": "v"}}
		Expect(veniceC.Create(ctx, after)).To(Succeed())
		Eventually(func() error { return naplesC.Get(ctx, client.ObjectKeyFromObject(after), &corev1.ConfigMap{}) }).
			WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(), "reflection still works")
		Consistently(func(g Gomega) {
			g.Expect(framework.NodeReady(ctx, veniceC, "liqo-naples")).To(Succeed())
			g.Expect(framework.NodeReady(ctx, veniceC, "liqo-florence")).To(Succeed())
			g.Expect(naplesC.Get(ctx, tokenKey, &corev1.Secret{})).To(Succeed(), "the Secret reflector leaves the token alone")
		}).WithContext(ctx).WithTimeout(8 * time.Second).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(90*time.Second))

	It("brings back a token Secret deleted by hand on the provider", func(ctx context.Context) {
		token := &corev1.Secret{}
		Expect(naplesC.Get(ctx, tokenKey, token)).To(Succeed())
		Expect(naplesC.Delete(ctx, token)).To(Succeed())
		Eventually(func(g Gomega) {
			back := &corev1.Secret{}
			g.Expect(naplesC.Get(ctx, tokenKey, back)).To(Succeed())
			g.Expect(back.UID).NotTo(Equal(token.UID))
			g.Expect(back.Data).To(HaveKey(serviceaccount.TokenKey))
		}).WithContext(ctx).WithTimeout(2 * serviceaccount.DefaultInterval).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))

	It("denies a Service with externalIPs written into the twin with venice's own identity", func(ctx context.Context) {
		creds := &corev1.Secret{}
		Expect(veniceC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "naples-credentials"}, creds)).To(Succeed())
		cfg, err := naples.RESTConfig()
		Expect(err).NotTo(HaveOccurred())
		asVenice := rest.AnonymousClientConfig(cfg)
		asVenice.BearerToken = string(creds.Data[sharingv1alpha1.IdentityTokenKey])
		c, err := client.New(asVenice, client.Options{Scheme: framework.Scheme()})
		Expect(err).NotTo(HaveOccurred())
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "capture"},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{"203.0.113.7"}, Ports: []corev1.ServicePort{{Port: 80}}}}
		err = c.Create(ctx, svc)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("spec.externalIPs"))
		svc.Spec.ExternalIPs = nil
		Expect(c.Create(ctx, svc)).To(Succeed(), "the same identity may write a plain Service: the denial is about externalIPs")

		// venice's own reflection never sends them: the copy arrives without.
		local := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "public"},
			Spec: corev1.ServiceSpec{ExternalIPs: []string{"203.0.113.8"}, Ports: []corev1.ServicePort{{Port: 80}}}}
		Expect(veniceC.Create(ctx, local)).To(Succeed())
		Eventually(func(g Gomega) {
			got := &corev1.Service{}
			g.Expect(naplesC.Get(ctx, client.ObjectKeyFromObject(local), got)).To(Succeed())
			g.Expect(got.Spec.ExternalIPs).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))

	It("refuses a reserved twin name and a name naples already uses, with the reason in the NamespaceOffloading", func(ctx context.Context) {
		Expect(naplesC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "taken"}})).To(Succeed())
		for name, reason := range map[string]string{"monitoring": `namespace name "monitoring" is reserved on cluster naples`,
			"taken": `namespace "taken" already exists on cluster naples`} {
			Expect(veniceC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}})).To(Succeed())
			Expect(veniceC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: name},
				Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.EnforceSameNameMappingStrategy,
					PodOffloadingStrategy: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, ClusterSelector: region("south")}})).To(Succeed())
			Eventually(func(g Gomega) {
				no := &offloadingv1alpha1.NamespaceOffloading{}
				g.Expect(veniceC.Get(ctx, client.ObjectKey{Namespace: name, Name: "offloading"}, no)).To(Succeed())
				g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.AllFailedOffloadingPhase))
				conds := no.Status.RemoteNamespacesConditions[policies.UniqueClusterName(naplesID.ClusterName, naplesID.ClusterID)]
				g.Expect(conds).To(ContainElement(And(HaveField("Type", offloadingv1alpha1.NamespaceReadyCondition),
					HaveField("Reason", offloadingv1alpha1.NamespaceNameConflictReason), HaveField("Message", ContainSubstring(reason)))))
			}).WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(), name)
		}
		ns := &corev1.Namespace{}
		Expect(client.IgnoreNotFound(naplesC.Get(ctx, client.ObjectKey{Name: "monitoring"}, ns))).To(Succeed())
		Expect(ns.Name).To(BeEmpty(), "naples created no monitoring namespace")
		Expect(naplesC.Get(ctx, client.ObjectKey{Name: "taken"}, ns)).To(Succeed())
		Expect(ns.Labels).NotTo(HaveKey(sharingv1alpha1.TwinNamespaceLabel), "naples' own namespace is left as it was")
	}, SpecTimeout(90*time.Second))
})
