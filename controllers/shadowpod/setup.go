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

package shadowpod

import (
	"maps"

	"github.com/fluxcd/pkg/runtime/predicates"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// concurrentReconciles: a reconcile mostly waits on the API server (create the
// pod, patch the status), and one pod takes about three of them, so a single
// worker started fewer than 4 offloaded pods a second (make bench). Reconciles
// of the same ShadowPod never overlap, whatever the number.
const concurrentReconciles = 10

// SetupWithManager watches ShadowPods (their spec, labels and annotations,
// not the status this controller writes) and the pods they control, for the
// changes that are mirrored or repaired: phase, readiness, deletion, and the
// fields syncPod keeps in line.
func (r *ShadowPodReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("shadowpod").
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrentReconciles}).
		For(&virtualkubeletv1alpha1.ShadowPod{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicates.ReconcileRequestedPredicate{},
			predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Owns(&corev1.Pod{}, builder.WithPredicates(podChanged)).
		Complete(r)
}

// podChanged passes pod creations and deletions, and the updates that change
// what the ShadowPod mirrors or what syncPod repairs; kubelet's status noise
// (IPs, restart counts, probe timestamps) does not.
var podChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		oldPod, okOld := e.ObjectOld.(*corev1.Pod)
		newPod, okNew := e.ObjectNew.(*corev1.Pod)
		if !okOld || !okNew {
			return false
		}
		return oldPod.Status.Phase != newPod.Status.Phase ||
			podReady(oldPod) != podReady(newPod) ||
			detail(oldPod) != detail(newPod) ||
			oldPod.DeletionTimestamp.IsZero() != newPod.DeletionTimestamp.IsZero() ||
			oldPod.Generation != newPod.Generation ||
			!maps.Equal(oldPod.Labels, newPod.Labels) ||
			!maps.Equal(oldPod.Annotations, newPod.Annotations)
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}
