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

package namespaceoffloading

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// SetupWithManager watches NamespaceOffloadings and virtual nodes: a peer
// appearing or changing labels can change what a selector matches.
func (r *NamespaceOffloadingReconciler) SetupWithManager(mgr ctrl.Manager) error {
	isVirtual := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetLabels()[virtualkubeletv1alpha1.TypeLabel] == virtualkubeletv1alpha1.TypeVirtualNode
	})
	return ctrl.NewControllerManagedBy(mgr).
		For(&offloadingv1alpha1.NamespaceOffloading{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Watches(&corev1.Node{}, handler.EnqueueRequestsFromMapFunc(r.all), builder.WithPredicates(isVirtual, predicate.Or(predicate.LabelChangedPredicate{}, readyChanged()))).
		// A new peering may come to match a selector that matches nothing:
		// a stalled offloading waits for it again.
		Watches(&discoveryv1alpha1.ForeignCluster{}, handler.EnqueueRequestsFromMapFunc(r.all), builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Complete(r)
}

func (r *NamespaceOffloadingReconciler) all(ctx context.Context, _ client.Object) []reconcile.Request {
	list := &offloadingv1alpha1.NamespaceOffloadingList{}
	if err := r.List(ctx, list); err != nil {
		// A map function cannot return an error; the periodic resync catches up.
		log.FromContext(ctx).Error(err, "listing NamespaceOffloadings after a virtual node changed: they are reconciled at their next resync")
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for _, no := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&no)})
	}
	return out
}

// readyChanged passes node creations and Ready flips, not heartbeats.
func readyChanged() predicate.Funcs {
	ready := func(o client.Object) corev1.ConditionStatus {
		for _, c := range o.(*corev1.Node).Status.Conditions {
			if c.Type == corev1.NodeReady {
				return c.Status
			}
		}
		return corev1.ConditionUnknown
	}
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool { return ready(e.ObjectOld) != ready(e.ObjectNew) }}
}
