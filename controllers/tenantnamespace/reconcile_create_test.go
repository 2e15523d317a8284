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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestReconcileCreatesTheTwin(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), request)
	g := e.g

	res, got := e.mustReconcile(request)
	g.Expect(res).To(BeZero())
	g.Expect(got.Finalizers).To(ConsistOf(Finalizer))
	g.Expect(got.Data).To(Equal(map[string]string{
		sharingv1alpha1.TwinRemoteNamespaceKey: "shop-rome",
		sharingv1alpha1.TwinLocalNamespaceKey:  "shop",
		sharingv1alpha1.TwinPhaseKey:           sharingv1alpha1.TwinPhaseReady,
		sharingv1alpha1.TwinMessageKey:         "twin namespace shop-rome ready",
	}))

	twin := e.namespace("shop-rome")
	g.Expect(twin.Labels).To(Equal(map[string]string{
		sharingv1alpha1.TwinNamespaceLabel:   "rome-id",
		sharingv1alpha1.RemoteClusterIDLabel: "rome-id",
		// No offer: the baseline, the least a consumer's pods are held to.
		"pod-security.kubernetes.io/enforce":         "baseline",
		"pod-security.kubernetes.io/enforce-version": "latest",
	}))
	g.Expect(twin.Annotations).To(HaveKeyWithValue("liqo.io/local-namespace", "shop"))

	binding := &rbacv1.RoleBinding{}
	g.Expect(e.get(client.ObjectKey{Namespace: "shop-rome", Name: "liqo-consumer"}, binding)).To(Succeed())
	g.Expect(binding.RoleRef).To(Equal(rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole",
		Name: sharingv1alpha1.OffloadingClusterRoleName}))
	g.Expect(binding.Subjects).To(ConsistOf(rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: "liqo-tenant-rome",
		Name: sharingv1alpha1.ConsumerServiceAccountName}))

	role := &rbacv1.ClusterRole{}
	g.Expect(e.get(client.ObjectKey{Name: sharingv1alpha1.OffloadingClusterRoleName}, role)).To(Succeed())
	g.Expect(granted(role.Rules)).To(Equal(map[string][]string{
		"virtualkubelet.liqo.io/shadowpods": crud,
		"/configmaps":                       crud,
		"/secrets":                          crud,
		"/services":                         crud,
		"/persistentvolumeclaims":           crud,
		"discovery.k8s.io/endpointslices":   crud,
		"networking.k8s.io/ingresses":       crud,
		"/pods":                             {"get", "list", "watch"},
		"/pods/log":                         {"get"},
		"/pods/exec":                        {"get", "create"},
		"/events":                           {"get", "list", "watch"},
	}))

	// Nothing is bound in the tenant namespace or cluster-wide.
	bindings := &rbacv1.RoleBindingList{}
	g.Expect(e.c.List(context.Background(), bindings)).To(Succeed())
	g.Expect(bindings.Items).To(HaveLen(1))
	crbs := &rbacv1.ClusterRoleBindingList{}
	g.Expect(e.c.List(context.Background(), crbs)).To(Succeed())
	g.Expect(crbs.Items).To(BeEmpty())

	// A second pass changes nothing.
	before := got.ResourceVersion
	_, again := e.mustReconcile(request)
	g.Expect(again.ResourceVersion).To(Equal(before))
}

// granted flattens rules into group/resource → verbs.
func granted(rules []rbacv1.PolicyRule) map[string][]string {
	out := map[string][]string{}
	for _, rule := range rules {
		for _, group := range rule.APIGroups {
			for _, res := range rule.Resources {
				out[group+"/"+res] = append(out[group+"/"+res], rule.Verbs...)
			}
		}
	}
	return out
}

func TestReconcileAdoptsTheConsumersOwnTwin(t *testing.T) {
	existing := newNamespace("shop-rome", twinOf("rome"), withLabel("team", "shop"))
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), existing, request)
	g := e.g
	_, got := e.mustReconcile(request)
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseReady))
	twin := e.namespace("shop-rome")
	g.Expect(twin.Labels).To(HaveKeyWithValue("team", "shop"))
	g.Expect(twin.Annotations).To(HaveKeyWithValue("liqo.io/local-namespace", "shop"))
	g.Expect(e.get(client.ObjectKey{Namespace: "shop-rome", Name: "liqo-consumer"}, &rbacv1.RoleBinding{})).To(Succeed())
}

func TestTheConsumerIsWhatItsTenantNamespaceSays(t *testing.T) {
	// A consumer claiming another ID in its request is not believed.
	request := newRequest("rome", "shop-rome", withData("consumerClusterID", "paris-id"), withData("clusterID", "paris-id"))
	e := newEnv(t, newTenant("rome"), request)
	e.mustReconcile(request)
	e.g.Expect(e.namespace("shop-rome").Labels).To(HaveKeyWithValue(sharingv1alpha1.TwinNamespaceLabel, "rome-id"))
}

func TestARequestOutsideATenantNamespaceIsIgnored(t *testing.T) {
	request := newRequest("rome", "shop-rome", withNamespace("default"))
	e := newEnv(t, newNamespace("default", withLabel(sharingv1alpha1.RemoteClusterIDLabel, "rome-id")), request)
	g := e.g
	_, got := e.mustReconcile(request)
	g.Expect(got.Finalizers).To(BeEmpty())
	g.Expect(got.Data).NotTo(HaveKey(sharingv1alpha1.TwinPhaseKey))
	g.Expect(e.gone(client.ObjectKey{Name: "shop-rome"}, &corev1.Namespace{})).To(BeTrue())
}

func TestReconcileRestoresTheClusterRoleAndBinding(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	edited := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: sharingv1alpha1.OffloadingClusterRoleName},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}}
	twin := newNamespace("shop-rome", twinOf("rome"))
	toAdmin := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "shop-rome", Name: "liqo-consumer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "admin"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: "mallory"}}}
	e := newEnv(t, newTenant("rome"), request, edited, twin, toAdmin)
	g := e.g
	e.mustReconcile(request)

	role := &rbacv1.ClusterRole{}
	g.Expect(e.get(client.ObjectKeyFromObject(edited), role)).To(Succeed())
	g.Expect(role.Rules).To(Equal(offloadingRules()))
	binding := &rbacv1.RoleBinding{}
	g.Expect(e.get(client.ObjectKeyFromObject(toAdmin), binding)).To(Succeed())
	g.Expect(binding.RoleRef.Name).To(Equal(sharingv1alpha1.OffloadingClusterRoleName))
	g.Expect(binding.Subjects).To(ConsistOf(HaveField("Name", sharingv1alpha1.ConsumerServiceAccountName)))
}

func TestATerminatingTwinIsWaitedFor(t *testing.T) {
	now := metav1.Now()
	leaving := newNamespace("shop-rome", twinOf("rome"))
	leaving.DeletionTimestamp, leaving.Finalizers = &now, []string{"kubernetes"}
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), leaving, request)
	g := e.g
	res, got := e.mustReconcile(request)
	g.Expect(res.RequeueAfter).To(Equal(terminatingRequeue))
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(BeEmpty())
	g.Expect(got.Data[sharingv1alpha1.TwinMessageKey]).To(ContainSubstring("still terminating"))
	g.Expect(e.get(client.ObjectKey{Namespace: "shop-rome", Name: "liqo-consumer"}, &rbacv1.RoleBinding{})).NotTo(Succeed())
}
