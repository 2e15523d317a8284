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
	"errors"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// SetupWithManager watches twin-namespace requests; Namespaces, so that a
// request re-checks its conflict when the name is freed or taken; and the
// deletion of Pods and ShadowPods, so that a withdrawn request finishes as
// soon as its twin is empty. Twins are cluster-scoped and requests live in
// tenant namespaces, where owner references cannot point: mapped watches.
func (r *TwinNamespaceReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.LocalClusterName == "" {
		return errors.New("TwinNamespaceReconciler needs LocalClusterName: it names this provider in the conflicts consumers read")
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("twinnamespace").
		For(&corev1.ConfigMap{}, builder.WithPredicates(predicate.NewPredicateFuncs(isRequest))).
		Watches(&corev1.Namespace{}, handler.EnqueueRequestsFromMapFunc(r.requestsForNamespace)).
		Watches(&sharingv1alpha1.ResourceOffer{}, handler.EnqueueRequestsFromMapFunc(r.requestsForOffer)).
		Watches(&offloadingv1alpha1.NamespaceOffloading{}, handler.EnqueueRequestsFromMapFunc(r.requestsForOffloading)).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(r.withdrawnRequestsForWorkload), builder.WithPredicates(deletedOnly)).
		Watches(&virtualkubeletv1alpha1.ShadowPod{}, handler.EnqueueRequestsFromMapFunc(r.withdrawnRequestsForWorkload),
			builder.WithPredicates(deletedOnly)).
		Complete(r)
}

// isRequest passes requests, and former requests still holding the
// finalizer (the label was removed), which must be released.
func isRequest(obj client.Object) bool {
	return obj.GetLabels()[sharingv1alpha1.TwinRequestLabel] == "true" || controllerutil.ContainsFinalizer(obj, Finalizer)
}

var deletedOnly = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// requestsForNamespace maps a namespace to every request for a twin of that
// name, whichever consumer made it.
func (r *TwinNamespaceReconciler) requestsForNamespace(ctx context.Context, ns client.Object) []reconcile.Request {
	return r.requestsFor(ctx, ns.GetName(), false)
}

// withdrawnRequestsForWorkload maps a Pod or ShadowPod to the withdrawn
// requests for its namespace, which may be waiting for it to go.
func (r *TwinNamespaceReconciler) withdrawnRequestsForWorkload(ctx context.Context, obj client.Object) []reconcile.Request {
	return r.requestsFor(ctx, obj.GetNamespace(), true)
}

func (r *TwinNamespaceReconciler) requestsFor(ctx context.Context, twin string, withdrawnOnly bool) []reconcile.Request {
	requests := &corev1.ConfigMapList{}
	if err := r.List(ctx, requests, client.MatchingLabels{sharingv1alpha1.TwinRequestLabel: "true"}); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range requests.Items {
		cm := &requests.Items[i]
		if cm.Name != sharingv1alpha1.TwinRequestName(twin) || (withdrawnOnly && cm.DeletionTimestamp.IsZero()) {
			continue
		}
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(cm)})
	}
	return out
}
