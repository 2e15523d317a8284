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

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// ensureBrokerOffloading offloads a twin onward when this cluster is the
// consumer's broker (its offer's spec.broker): a NamespaceOffloading of the
// broker's making (policies.BrokerOffloading) sends the twin's pods to the
// virtual nodes the offer resells. It is generated, not in git: the twins
// exist only at the consumers' request, and the consumer, whose identity
// cannot write NamespaceOffloadings, never chooses where they go. It lives in
// the twin, so it goes with it; a NamespaceOffloading without the broker's
// label (someone's by hand) is left as it is.
func (r *TwinNamespaceReconciler) ensureBrokerOffloading(ctx context.Context, s *scope, broker bool) error {
	current := &offloadingv1alpha1.NamespaceOffloading{}
	err := r.Get(ctx, client.ObjectKey{Namespace: s.twin, Name: offloadingv1alpha1.RequiredName}, current)
	switch {
	case apierrors.IsNotFound(err):
		current = nil
	case err != nil:
		return fmt.Errorf("reading NamespaceOffloading %s/%s: %w", s.twin, offloadingv1alpha1.RequiredName, err)
	}
	ours := current != nil && current.Labels[sharingv1alpha1.BrokerOffloadingLabel] == "true"
	want := policies.BrokerOffloading(s.consumerID)
	switch {
	case broker && current == nil:
		no := &offloadingv1alpha1.NamespaceOffloading{
			ObjectMeta: metav1.ObjectMeta{Namespace: s.twin, Name: offloadingv1alpha1.RequiredName,
				Labels: map[string]string{sharingv1alpha1.BrokerOffloadingLabel: "true"}},
			Spec: want,
		}
		if err := r.Create(ctx, no, client.FieldOwner(fieldOwner)); err != nil {
			return fmt.Errorf("creating the broker's NamespaceOffloading in twin %s for cluster %s: %w", s.twin, s.consumerID, err)
		}
	case broker && ours && !equality.Semantic.DeepEqual(current.Spec, want):
		updated := current.DeepCopy()
		updated.Spec = want
		if err := r.Patch(ctx, updated, client.MergeFrom(current), client.FieldOwner(fieldOwner)); err != nil {
			return fmt.Errorf("updating the broker's NamespaceOffloading in twin %s: %w", s.twin, err)
		}
	case !broker && ours && current.DeletionTimestamp.IsZero():
		// No longer a broker: unoffloading evicts the pods, which their
		// consumer's ShadowPods bring back on this cluster's own nodes.
		if err := r.Delete(ctx, current); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the broker's NamespaceOffloading in twin %s: %w", s.twin, err)
		}
	}
	return nil
}

// requestsForOffloading maps a NamespaceOffloading to the request for the
// twin it lives in, so a generated one deleted by hand comes back.
func (r *TwinNamespaceReconciler) requestsForOffloading(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.requestsFor(ctx, obj.GetNamespace(), false)
}
