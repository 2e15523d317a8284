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

package offloadedpod

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// SetupWithManager watches bound pods when they are bound or their
// tolerations change, and NamespaceOffloadings when their annotations change
// (the policy), which requeue the namespace's bound pods.
func (r *OffloadedPodReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("offloadedpod").
		For(&corev1.Pod{}, builder.WithPredicates(boundOrTolerationsChanged)).
		Watches(&offloadingv1alpha1.NamespaceOffloading{}, handler.EnqueueRequestsFromMapFunc(r.boundPodsOf),
			builder.WithPredicates(predicate.AnnotationChangedPredicate{})).
		Complete(r)
}

// boundOrTolerationsChanged passes bound pods as they are created (and at
// start), when they are bound, and when their tolerations change; the status
// updates of every pod in the cluster do not reach the reconciler.
var boundOrTolerationsChanged = predicate.Funcs{
	CreateFunc: func(e event.CreateEvent) bool { return bound(e.Object) },
	UpdateFunc: func(e event.UpdateEvent) bool {
		oldPod, okOld := e.ObjectOld.(*corev1.Pod)
		newPod, okNew := e.ObjectNew.(*corev1.Pod)
		if !okOld || !okNew || newPod.Spec.NodeName == "" {
			return false
		}
		return oldPod.Spec.NodeName != newPod.Spec.NodeName ||
			!equality.Semantic.DeepEqual(oldPod.Spec.Tolerations, newPod.Spec.Tolerations)
	},
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func bound(o client.Object) bool {
	pod, ok := o.(*corev1.Pod)
	return ok && pod.Spec.NodeName != ""
}

// boundPodsOf lists the bound pods of a NamespaceOffloading's namespace.
func (r *OffloadedPodReconciler) boundPodsOf(ctx context.Context, o client.Object) []reconcile.Request {
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the pods of an offloaded namespace", "namespace", o.GetNamespace())
		return nil
	}
	var out []reconcile.Request
	for i := range pods.Items {
		if pods.Items[i].Spec.NodeName != "" {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&pods.Items[i])})
		}
	}
	return out
}
