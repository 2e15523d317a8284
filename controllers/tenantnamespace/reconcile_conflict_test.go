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

package tenantnamespace

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestAForeignNamespaceIsAConflictAndIsLeftAlone(t *testing.T) {
	foreign := newNamespace("shop", withLabel("team", "shop"))
	foreign.Annotations = map[string]string{"owner": "ops"}
	request := newRequest("rome", "shop")
	e := newEnv(t, newTenant("rome"), foreign, request)
	g := e.g

	res, got := e.mustReconcile(request)
	g.Expect(res).To(BeZero(), "the Namespace watch retries when the name is freed")
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
	g.Expect(got.Data[sharingv1alpha1.TwinMessageKey]).To(Equal(`namespace "shop" already exists on cluster milan and is not rome's twin: ` +
		`nothing was changed; choose DefaultName or rename the namespace`))
	g.Expect(got.Finalizers).To(BeEmpty(), "nothing was created, so nothing needs cleaning up")

	ns := e.namespace("shop")
	g.Expect(ns.Labels).To(Equal(map[string]string{"team": "shop"}))
	g.Expect(ns.Annotations).To(Equal(map[string]string{"owner": "ops"}))
	g.Expect(ns.ResourceVersion).To(Equal(foreign.ResourceVersion))
	g.Expect(e.get(client.ObjectKey{Namespace: "shop", Name: "liqo-consumer"}, &rbacv1.RoleBinding{})).NotTo(Succeed())

	// Once the name is free, the same request succeeds.
	e.delete(ns)
	_, got = e.mustReconcile(request)
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseReady))
}

func TestARequestCannotAdoptAnotherConsumersTwin(t *testing.T) {
	parisTwin := newNamespace("shop", twinOf("paris"))
	parisBinding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "liqo-consumer"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: sharingv1alpha1.OffloadingClusterRoleName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "liqo-tenant-paris",
			Name: sharingv1alpha1.ConsumerServiceAccountName}}}
	fromRome := newRequest("rome", "shop")
	e := newEnv(t, newTenant("rome"), newTenant("paris"), parisTwin, parisBinding, fromRome)
	g := e.g

	_, got := e.mustReconcile(fromRome)
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
	g.Expect(got.Data[sharingv1alpha1.TwinMessageKey]).To(ContainSubstring("is not rome's twin"))
	g.Expect(e.namespace("shop").Labels).To(HaveKeyWithValue(sharingv1alpha1.TwinNamespaceLabel, "paris-id"))
	binding := &rbacv1.RoleBinding{}
	g.Expect(e.get(client.ObjectKeyFromObject(parisBinding), binding)).To(Succeed())
	g.Expect(binding.Subjects).To(Equal(parisBinding.Subjects))
	g.Expect(binding.ResourceVersion).To(Equal(parisBinding.ResourceVersion))

	// Withdrawing rome's request does not take paris's twin away.
	e.delete(got)
	_, err := e.reconcile(fromRome)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(e.namespace("shop").Labels).To(HaveKeyWithValue(sharingv1alpha1.TwinNamespaceLabel, "paris-id"))
}

func TestATenantNamespaceIsNeverATwin(t *testing.T) {
	// Both carry the consumer's ID; only a twin carries the twin label.
	request := newRequest("rome", "rome-tenant")
	tenantLike := newNamespace("rome-tenant", withLabel(sharingv1alpha1.RemoteClusterIDLabel, "rome-id"),
		withLabel(sharingv1alpha1.TenantNamespaceLabel, "true"))
	e := newEnv(t, newTenant("rome"), tenantLike, request)
	_, got := e.mustReconcile(request)
	e.g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
	e.g.Expect(e.namespace("rome-tenant").Labels).NotTo(HaveKey(sharingv1alpha1.TwinNamespaceLabel))
}

func TestATwinTakenOverLaterTurnsIntoAConflict(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), request)
	g := e.g
	e.mustReconcile(request)
	ns := e.namespace("shop-rome")
	ns.Labels = map[string]string{"team": "shop"}
	g.Expect(e.c.Update(t.Context(), ns)).To(Succeed())

	_, got := e.mustReconcile(request)
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
	g.Expect(e.namespace("shop-rome").Labels).To(Equal(map[string]string{"team": "shop"}))
	g.Expect(e.gone(client.ObjectKey{Name: "shop-rome"}, &corev1.Namespace{})).To(BeFalse())
}
