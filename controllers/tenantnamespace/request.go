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
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// reservedPrefixes start namespace names a consumer may not claim: Kubernetes
// keeps kube- for itself, and a twin named like a tenant namespace would
// squat the tenant of a consumer that has not peered yet.
var reservedPrefixes = []string{"kube-", sharingv1alpha1.TenantNamespacePrefix}

// twinName is the namespace a request asks for: its name without the
// prefix. It is derived from the name, which cannot change, rather than from
// data the consumer may rewrite, so a deletion always finds the twin it made.
func twinName(request *corev1.ConfigMap) string {
	name, ok := strings.CutPrefix(request.Name, sharingv1alpha1.TwinRequestPrefix)
	if !ok {
		return ""
	}
	return name
}

// validateRequest returns why a request cannot be served, naming the key to
// fix, or "" when it is well formed.
func validateRequest(request *corev1.ConfigMap) string {
	key := "data." + sharingv1alpha1.TwinRemoteNamespaceKey
	want := twinName(request)
	if want == "" {
		return fmt.Sprintf("ConfigMap name %q does not start with %q: name a twin-namespace request %s<%s>",
			request.Name, sharingv1alpha1.TwinRequestPrefix, sharingv1alpha1.TwinRequestPrefix, key)
	}
	got, ok := request.Data[sharingv1alpha1.TwinRemoteNamespaceKey]
	switch {
	case !ok || got == "":
		return fmt.Sprintf("%s is missing: set it to the twin namespace's name, %q", key, want)
	case got != want:
		return fmt.Sprintf("%s %q does not match the ConfigMap name %q: the name must be %q followed by %s",
			key, got, request.Name, sharingv1alpha1.TwinRequestPrefix, key)
	}
	if errs := validation.IsDNS1123Label(got); len(errs) > 0 {
		return fmt.Sprintf("%s %q is not a valid namespace name: %s", key, got, strings.Join(errs, "; "))
	}
	for _, p := range reservedPrefixes {
		if strings.HasPrefix(got, p) {
			return fmt.Sprintf("%s %q starts with %q, which is reserved on this cluster: choose another name", key, got, p)
		}
	}
	return ""
}

// consumerName is how messages name a consumer: its tenant name (its cluster
// name), or its cluster ID when the tenant namespace is not named by contract.
func consumerName(tenantNamespace, consumerID string) string {
	if name, ok := strings.CutPrefix(tenantNamespace, sharingv1alpha1.TenantNamespacePrefix); ok && name != "" {
		return name
	}
	return consumerID
}

// conflictMessage tells the consumer that the name is taken here and how to
// get out of it, from its side: another mapping strategy or another name.
func (r *TwinNamespaceReconciler) conflictMessage(s *scope) string {
	return fmt.Sprintf("namespace %q already exists on cluster %s and is not %s's twin: nothing was changed; choose DefaultName or rename the namespace",
		s.twin, r.LocalClusterName, s.consumerName)
}

// reservedMessage tells the consumer that this provider keeps the name for
// itself, whether or not the namespace exists yet.
func (r *TwinNamespaceReconciler) reservedMessage(s *scope, entry string) string {
	return fmt.Sprintf("namespace name %q is reserved on cluster %s (--reserved-namespaces entry %q) and is never given to a consumer: nothing was created; choose DefaultName or rename the namespace",
		s.twin, r.LocalClusterName, entry)
}

// report writes the outcome into the request, the consumer's only status
// channel: a merge patch of the phase and message keys alone, so nothing the
// consumer wrote is overwritten, and none at all when they already say so.
func (r *TwinNamespaceReconciler) report(ctx context.Context, request *corev1.ConfigMap, phase, message string) error {
	if request.Data[sharingv1alpha1.TwinPhaseKey] == phase && request.Data[sharingv1alpha1.TwinMessageKey] == message {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"data": map[string]string{
		sharingv1alpha1.TwinPhaseKey:   phase,
		sharingv1alpha1.TwinMessageKey: message,
	}})
	if err != nil {
		return err
	}
	if err := r.Patch(ctx, request, client.RawPatch(types.MergePatchType, patch), client.FieldOwner(fieldOwner)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("writing %s=%s into ConfigMap %s/%s: %w", sharingv1alpha1.TwinPhaseKey, phase, request.Namespace, request.Name, err)
	}
	return nil
}
