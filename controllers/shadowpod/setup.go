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
	"context"
	"maps"

	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/runtime/predicates"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// concurrentReconciles: a reconcile mostly waits on the API server (create the
// pod, patch the status), and one pod takes about three of them, so a single
// worker started fewer than 4 offloaded pods a second (make bench). Reconciles
// of the same ShadowPod never overlap, whatever the number.
const concurrentReconciles = 10

// SetupWithManager watches ShadowPods (their spec, labels and annotations,
// not the status this controller writes) and the pods they control, for the
// changes that are mirrored or repaired: phase, readiness, deletion, and the
// fields syncPod keeps in line. It also watches the ServiceAccounts offloaded
// pods run as (their metadata only), see shadowPodsAwaitingServiceAccount.
func (r *ShadowPodReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("shadowpod").
		WithOptions(controller.Options{MaxConcurrentReconciles: concurrentReconciles}).
		For(&virtualkubeletv1alpha1.ShadowPod{}, builder.WithPredicates(predicate.Or(
			predicate.GenerationChangedPredicate{}, predicates.ReconcileRequestedPredicate{},
			predicate.LabelChangedPredicate{}, predicate.AnnotationChangedPredicate{}))).
		Owns(&corev1.Pod{}, builder.WithPredicates(podChanged)).
		Watches(&corev1.ServiceAccount{}, handler.EnqueueRequestsFromMapFunc(r.shadowPodsAwaitingServiceAccount),
			builder.OnlyMetadata, builder.WithPredicates(providerServiceAccountCreated)).
		Complete(r)
}

// providerServiceAccountCreated passes the creation of a namespace's
// ServiceAccount that offloaded pods run as, and nothing else.
var providerServiceAccountCreated = predicate.Funcs{
	CreateFunc:  func(e event.CreateEvent) bool { return e.Object.GetName() == policies.ProviderServiceAccount },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

// shadowPodsAwaitingServiceAccount queues again the ShadowPods of sa's
// namespace that are not Ready. The API server refuses a pod until its
// namespace's default ServiceAccount exists, which kube-controller-manager
// makes some time after the namespace: seconds usually, tens of seconds
// right after an outage of this cluster (docs/faults.md). A refused create
// is retried with a growing backoff, so without this the pod would start up
// to a backoff step after the ServiceAccount appeared.
func (r *ShadowPodReconciler) shadowPodsAwaitingServiceAccount(ctx context.Context, sa client.Object) []reconcile.Request {
	list := &virtualkubeletv1alpha1.ShadowPodList{}
	if err := r.List(ctx, list, client.InNamespace(sa.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing ShadowPods to retry after a ServiceAccount appeared", "namespace", sa.GetNamespace())
		return nil
	}
	return notReady(list.Items)
}

// notReady are the requests for the ShadowPods whose Ready condition is not
// True: refused, or not reported yet.
func notReady(sps []virtualkubeletv1alpha1.ShadowPod) []reconcile.Request {
	var reqs []reconcile.Request
	for i := range sps {
		if !conditions.IsReady(&sps[i]) {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&sps[i])})
		}
	}
	return reqs
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
