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

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

var crud = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// consumerRoleRules is everything a consumer may do on this cluster, all of
// it inside its tenant namespace: the Role is namespaced and nothing is bound
// cluster-wide, so it cannot list Secrets, Nodes or Namespaces elsewhere.
// Every verb granted here must also be held by the manager (see the RBAC
// markers on Reconcile): the API server refuses to grant more than one holds.
func consumerRoleRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// Peering: read the offer. Stated alone so that the offloading rule
		// below can be narrowed without breaking peering.
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
		// Offloading: the consumer's ShadowPods and what reflection mirrors.
		{APIGroups: []string{"virtualkubelet.liqo.io"}, Resources: []string{"shadowpods"}, Verbs: crud},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets", "services", "persistentvolumeclaims", "events"}, Verbs: crud},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: crud},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: crud},
	}
}

// ensureRBAC grants consumerRoleRules to the consumer's ServiceAccount.
func (r *ResourceOfferReconciler) ensureRBAC(ctx context.Context, s *scope) error {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: s.tenantNamespace, Name: sharingv1alpha1.ConsumerRoleName}}
	if err := r.createOrUpdate(ctx, role, func() error {
		consumerLabels(role, s.clusterID)
		role.Rules = consumerRoleRules()
		return nil
	}); err != nil {
		return err
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: s.tenantNamespace, Name: sharingv1alpha1.ConsumerRoleName}}
	return r.createOrUpdate(ctx, binding, func() error {
		consumerLabels(binding, s.clusterID)
		// roleRef is immutable; a binding made by someone else to another role fails here, naming it.
		binding.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sharingv1alpha1.ConsumerRoleName}
		binding.Subjects = []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: s.tenantNamespace,
			Name: sharingv1alpha1.ConsumerServiceAccountName}}
		return nil
	})
}
