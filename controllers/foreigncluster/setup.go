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

package foreigncluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// credentialsIndex finds the ForeignClusters that use a Secret.
const credentialsIndex = ".spec.credentialsSecretRef"

// SetupWithManager watches ForeignClusters, their credential Secrets (a
// rotation reconnects at once) and local ResourceOffers (incoming peering).
func (r *ForeignClusterReconciler) SetupWithManager(ctx context.Context, mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(ctx, &discoveryv1alpha1.ForeignCluster{}, credentialsIndex, func(o client.Object) []string {
		fc := o.(*discoveryv1alpha1.ForeignCluster)
		if fc.Spec.CredentialsSecretRef == nil {
			return nil
		}
		return []string{fc.CredentialsNamespace() + "/" + fc.Spec.CredentialsSecretRef.Name}
	}); err != nil {
		return err
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &corev1.Pod{}, "spec.nodeName", func(o client.Object) []string {
		return []string{o.(*corev1.Pod).Spec.NodeName}
	}); err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&discoveryv1alpha1.ForeignCluster{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.forSecret)).
		Watches(&sharingv1alpha1.ResourceOffer{}, handler.EnqueueRequestsFromMapFunc(r.forOffer)).
		Complete(r)
}

func (r *ForeignClusterReconciler) forSecret(ctx context.Context, o client.Object) []reconcile.Request {
	list := &discoveryv1alpha1.ForeignClusterList{}
	if err := r.List(ctx, list, client.MatchingFields{credentialsIndex: o.GetNamespace() + "/" + o.GetName()}); err != nil {
		return nil
	}
	return requests(list.Items)
}

func (r *ForeignClusterReconciler) forOffer(ctx context.Context, o client.Object) []reconcile.Request {
	offer := o.(*sharingv1alpha1.ResourceOffer)
	list := &discoveryv1alpha1.ForeignClusterList{}
	if err := r.List(ctx, list); err != nil {
		return nil
	}
	var out []discoveryv1alpha1.ForeignCluster
	for _, fc := range list.Items {
		if fc.Spec.ClusterIdentity.ClusterID == offer.Spec.ClusterID {
			out = append(out, fc)
		}
	}
	return requests(out)
}

func requests(fcs []discoveryv1alpha1.ForeignCluster) []reconcile.Request {
	out := make([]reconcile.Request, 0, len(fcs))
	for _, fc := range fcs {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: fc.Name}})
	}
	return out
}
