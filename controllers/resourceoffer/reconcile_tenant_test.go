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

package resourceoffer

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestReconcileCreatesTheTenant(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer)
	g := e.g
	res, got := e.mustReconcile(offer)
	g.Expect(got.Finalizers).To(ContainElement(Finalizer))
	g.Expect(res.RequeueAfter).To(Equal(tokenRequeue), "requeue until the token controller fills the token")

	tenant := "liqo-tenant-rome"
	ns := &corev1.Namespace{}
	g.Expect(e.get(client.ObjectKey{Name: tenant}, ns)).To(Succeed())
	g.Expect(ns.Labels).To(HaveKeyWithValue(sharingv1alpha1.TenantNamespaceLabel, "true"))
	g.Expect(ns.Labels).To(HaveKeyWithValue(sharingv1alpha1.RemoteClusterIDLabel, "rome-id"))

	g.Expect(e.get(client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ConsumerServiceAccountName}, &corev1.ServiceAccount{})).To(Succeed())

	token := &corev1.Secret{}
	g.Expect(e.get(client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ConsumerTokenSecretName}, token)).To(Succeed())
	g.Expect(token.Type).To(Equal(corev1.SecretTypeServiceAccountToken))
	g.Expect(token.Annotations).To(HaveKeyWithValue(corev1.ServiceAccountNameKey, sharingv1alpha1.ConsumerServiceAccountName))
	g.Expect(token.Labels).To(HaveKeyWithValue(sharingv1alpha1.RemoteClusterIDLabel, "rome-id"), "the Secret watch maps it back by this label")

	g.Expect(e.get(client.ObjectKey{Namespace: "liqo", Name: "liqo-identity-rome"}, &corev1.Secret{})).NotTo(Succeed(),
		"no identity before the token exists")
	g.Expect(got.Status.TenantNamespace).To(Equal(tenant))
	g.Expect(got.Status.IdentitySecretName).To(Equal("liqo-identity-rome"))
}

func TestReconcileGrantsOnlyTheTenantNamespace(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer)
	g := e.g
	e.publish(offer)
	tenant := "liqo-tenant-rome"

	role := &rbacv1.Role{}
	g.Expect(e.get(client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ConsumerRoleName}, role)).To(Succeed())
	granted := map[string][]string{}
	for _, rule := range role.Rules {
		g.Expect(rule.NonResourceURLs).To(BeEmpty())
		for _, group := range rule.APIGroups {
			for _, res := range rule.Resources {
				granted[group+"/"+res] = append(granted[group+"/"+res], rule.Verbs...)
			}
		}
	}
	g.Expect(granted).To(HaveKeyWithValue("/configmaps", ContainElements("get", "list", "watch")))
	for _, res := range []string{"virtualkubelet.liqo.io/shadowpods", "/configmaps", "/secrets", "/services", "discovery.k8s.io/endpointslices",
		"networking.k8s.io/ingresses", "/persistentvolumeclaims", "/events"} {
		g.Expect(granted).To(HaveKeyWithValue(res, ContainElements("get", "list", "watch", "create", "update", "patch", "delete")), res)
	}
	for _, clusterScoped := range []string{"/nodes", "/namespaces", "/persistentvolumes", "rbac.authorization.k8s.io/clusterroles", "*/*"} {
		g.Expect(granted).NotTo(HaveKey(clusterScoped))
	}

	binding := &rbacv1.RoleBinding{}
	g.Expect(e.get(client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.ConsumerRoleName}, binding)).To(Succeed())
	g.Expect(binding.RoleRef).To(Equal(rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sharingv1alpha1.ConsumerRoleName}))
	g.Expect(binding.Subjects).To(ConsistOf(rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: tenant,
		Name: sharingv1alpha1.ConsumerServiceAccountName}))

	// Nothing cluster-wide: the consumer cannot list Secrets outside its namespace.
	crs := &rbacv1.ClusterRoleList{}
	g.Expect(e.c.List(context.Background(), crs)).To(Succeed())
	g.Expect(crs.Items).To(BeEmpty())
	crbs := &rbacv1.ClusterRoleBindingList{}
	g.Expect(e.c.List(context.Background(), crbs)).To(Succeed())
	g.Expect(crbs.Items).To(BeEmpty())
	bindings := &rbacv1.RoleBindingList{}
	g.Expect(e.c.List(context.Background(), bindings)).To(Succeed())
	for _, b := range bindings.Items {
		g.Expect(b.Namespace).To(Equal(tenant))
	}
}

func TestReconcileReplacesASecretThatIsNotTheToken(t *testing.T) {
	offer := newOffer("rome")
	squatter := &corev1.Secret{Data: map[string][]byte{"token": []byte("not-a-token")}}
	squatter.Namespace, squatter.Name = "liqo-tenant-rome", sharingv1alpha1.ConsumerTokenSecretName
	e := newEnv(t, offer, squatter)
	g := e.g
	e.mustReconcile(offer)
	e.mustReconcile(offer)
	token := &corev1.Secret{}
	g.Expect(e.get(client.ObjectKeyFromObject(squatter), token)).To(Succeed())
	g.Expect(token.Type).To(Equal(corev1.SecretTypeServiceAccountToken))
	g.Expect(token.Data).To(BeEmpty())
}
