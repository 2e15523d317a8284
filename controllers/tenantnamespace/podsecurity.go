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

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// The Pod Security admission labels a twin carries, so that the API server
// itself enforces the consumer's offer level on every pod in the twin, even
// one created without Spillway's webhook or controller.
const (
	podSecurityEnforceLabel        = "pod-security.kubernetes.io/enforce"
	podSecurityEnforceVersionLabel = "pod-security.kubernetes.io/enforce-version"
)

// consumerOffer is consumerID's live ResourceOffer, nil when it has none.
func (r *TwinNamespaceReconciler) consumerOffer(ctx context.Context, consumerID string) (*sharingv1alpha1.ResourceOffer, error) {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return nil, fmt.Errorf("listing ResourceOffers for cluster %s: %w", consumerID, err)
	}
	for i := range offers.Items {
		if o := &offers.Items[i]; o.Spec.ClusterID == consumerID && o.DeletionTimestamp.IsZero() {
			return o, nil
		}
	}
	return nil, nil
}

// setPodSecurityLabels makes the twin enforce level with the API server's
// latest Pod Security standards; it reports whether anything changed.
func setPodSecurityLabels(ns *corev1.Namespace, level sharingv1alpha1.PodSecurityLevel) bool {
	changed := false
	for k, v := range map[string]string{podSecurityEnforceLabel: string(level), podSecurityEnforceVersionLabel: "latest"} {
		if ns.Labels[k] != v {
			if ns.Labels == nil {
				ns.Labels = map[string]string{}
			}
			ns.Labels[k] = v
			changed = true
		}
	}
	return changed
}

// requestsForOffer maps an offer to the twin requests of its consumer, which
// live in the offer's tenant namespace: a new level relabels every twin.
func (r *TwinNamespaceReconciler) requestsForOffer(ctx context.Context, obj client.Object) []reconcile.Request {
	offer, ok := obj.(*sharingv1alpha1.ResourceOffer)
	if !ok || offer.Status.TenantNamespace == "" {
		return nil
	}
	requests := &corev1.ConfigMapList{}
	if err := r.List(ctx, requests, client.InNamespace(offer.Status.TenantNamespace),
		client.MatchingLabels{sharingv1alpha1.TwinRequestLabel: "true"}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(requests.Items))
	for i := range requests.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&requests.Items[i])})
	}
	return out
}
