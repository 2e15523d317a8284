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
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// roleBindingName is the binding, in each twin, of the consumer to the
// offloading ClusterRole.
const roleBindingName = "liqo-consumer"

// managedByLabel marks the ClusterRole as this controller's: edits are undone.
const managedByLabel = "app.kubernetes.io/managed-by"

var crud = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

// offloadingRules is what a consumer may do inside each of its twins, and
// nowhere else: the ClusterRole is only ever bound by RoleBindings in twins.
// The manager holds every verb here (see the RBAC markers on Reconcile).
func offloadingRules() []rbacv1.PolicyRule {
	return []rbacv1.PolicyRule{
		// Its offloaded pods, as ShadowPods the provider turns into Pods.
		{APIGroups: []string{"virtualkubelet.liqo.io"}, Resources: []string{"shadowpods"}, Verbs: crud},
		// What reflection mirrors from the consumer's namespace.
		{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets", "services", "persistentvolumeclaims"}, Verbs: crud},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: crud},
		{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses"}, Verbs: crud},
		// The pods made from its ShadowPods, read-only: status, logs and events
		// flow back to the consumer, which watches pods per twin.
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods/log"}, Verbs: []string{"get"}},
		// `kubectl exec` on the consumer, relayed by its virtual kubelet: get
		// for the WebSocket upgrade (a GET, as the provider's API server
		// authorizes it), create for the SPDY fallback (a POST).
		{APIGroups: []string{""}, Resources: []string{"pods/exec"}, Verbs: []string{"get", "create"}},
		{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"get", "list", "watch"}},
	}
}

// ensureOffloadingClusterRole creates the ClusterRole every twin binds, or
// restores its rules. It is shared by all consumers and never deleted: a
// RoleBinding to a missing role grants nothing, so leaving it is harmless.
func (r *TwinNamespaceReconciler) ensureOffloadingClusterRole(ctx context.Context) error {
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: sharingv1alpha1.OffloadingClusterRoleName}}
	_, err := controllerutil.CreateOrUpdate(ctx, client.WithFieldOwner(r.Client, fieldOwner), role, func() error {
		if role.Labels == nil {
			role.Labels = map[string]string{}
		}
		role.Labels[managedByLabel] = fieldOwner
		role.Rules = offloadingRules()
		return nil
	})
	if err != nil {
		return fmt.Errorf("writing ClusterRole %s: %w", sharingv1alpha1.OffloadingClusterRoleName, err)
	}
	return nil
}

// ensureRoleBinding binds the consumer's ServiceAccount, which lives in its
// tenant namespace, to the offloading ClusterRole inside the twin. roleRef is
// immutable, so a binding of that name to another role is replaced: the twin
// is the consumer's, and the binding name belongs to this contract.
func (r *TwinNamespaceReconciler) ensureRoleBinding(ctx context.Context, s *scope) error {
	want := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.twin, Name: roleBindingName,
			Labels: map[string]string{sharingv1alpha1.RemoteClusterIDLabel: s.consumerID}},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: sharingv1alpha1.OffloadingClusterRoleName},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: s.request.Namespace,
			Name: sharingv1alpha1.ConsumerServiceAccountName}},
	}
	described := fmt.Sprintf("RoleBinding %s/%s", want.Namespace, want.Name)
	got := &rbacv1.RoleBinding{}
	err := r.Get(ctx, client.ObjectKeyFromObject(want), got)
	switch {
	case apierrors.IsNotFound(err):
		if err := r.Create(ctx, want, client.FieldOwner(fieldOwner)); err != nil {
			return fmt.Errorf("creating %s: %w", described, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading %s: %w", described, err)
	case got.RoleRef != want.RoleRef:
		if err := r.Delete(ctx, got, client.Preconditions{UID: &got.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("replacing %s, bound to %s %s: %w", described, got.RoleRef.Kind, got.RoleRef.Name, err)
		}
		if err := r.Create(ctx, want, client.FieldOwner(fieldOwner)); err != nil {
			return fmt.Errorf("creating %s: %w", described, err)
		}
		return nil
	case equality.Semantic.DeepEqual(got.Subjects, want.Subjects) && got.Labels[sharingv1alpha1.RemoteClusterIDLabel] == s.consumerID:
		return nil
	}
	base := got.DeepCopy()
	got.Subjects = want.Subjects
	if got.Labels == nil {
		got.Labels = map[string]string{}
	}
	got.Labels[sharingv1alpha1.RemoteClusterIDLabel] = s.consumerID
	if err := r.Patch(ctx, got, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(fieldOwner)); err != nil {
		return fmt.Errorf("updating %s: %w", described, err)
	}
	return nil
}
