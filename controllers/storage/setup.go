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

package storage

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// SetupWithManager watches claims: a claim outside the storage namespace
// requeues itself (claimItself), and a twin claim in the storage namespace
// requeues its virtual claim, so a twin turning Bound makes the virtual
// volume at once. A NamespaceOffloading requeues its namespace's pending
// claims, so one applied with its claims (as Flux does) reflects them as
// soon as its twins are Ready, not at the next 30 s recheck.
func (r *VirtualStorageReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("virtualstorage").
		Watches(&corev1.PersistentVolumeClaim{}, handler.EnqueueRequestsFromMapFunc(r.claimsFor)).
		Watches(&offloadingv1alpha1.NamespaceOffloading{}, handler.EnqueueRequestsFromMapFunc(r.pendingExternalClaims)).
		Complete(r)
}

// pendingExternalClaims are the claims of the offloading's namespace that
// may be externally managed storage and are not bound yet.
func (r *VirtualStorageReconciler) pendingExternalClaims(ctx context.Context, o client.Object) []reconcile.Request {
	claims := &corev1.PersistentVolumeClaimList{}
	if err := r.List(ctx, claims, client.InNamespace(o.GetNamespace())); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing the claims of an offloaded namespace; they are rechecked within 30 s", "namespace", o.GetNamespace())
		return nil
	}
	var out []reconcile.Request
	for i := range claims.Items {
		pvc := &claims.Items[i]
		if _, ok := policies.ExternalClaimClass(pvc); ok && pvc.Spec.VolumeName == "" {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(pvc)})
		}
	}
	return out
}

// claimsFor maps a claim to the virtual claim to reconcile: itself, or the
// one its twin annotation names.
func (r *VirtualStorageReconciler) claimsFor(_ context.Context, o client.Object) []reconcile.Request {
	pvc, ok := o.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil
	}
	if pvc.Namespace != r.StorageNamespace || isVirtualClaim(pvc) {
		return r.claimItself(pvc)
	}
	ns, name, ok := strings.Cut(pvc.Annotations[sharingv1alpha1.VirtualClaimAnnotation], "/")
	if !ok || ns == "" || name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// claimItself requeues a claim outside the storage namespace that this
// controller may act on: of the virtual class, or of another class (bound
// to a reflected volume, or maybe externally managed storage).
func (r *VirtualStorageReconciler) claimItself(pvc *corev1.PersistentVolumeClaim) []reconcile.Request {
	_, external := policies.ExternalClaimClass(pvc)
	if !isVirtualClaim(pvc) && !external && pvc.Spec.VolumeName == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKeyFromObject(pvc)}}
}

// SetupWithManager watches the volumes of the virtual class's provisioner.
func (r *VirtualVolumeReconciler) SetupWithManager(mgr ctrl.Manager) error {
	ours := predicate.NewPredicateFuncs(func(o client.Object) bool {
		return o.GetAnnotations()[policies.ProvisionedByAnnotation] == sharingv1alpha1.VirtualStorageProvisioner
	})
	return ctrl.NewControllerManagedBy(mgr).Named("virtualvolume").
		For(&corev1.PersistentVolume{}, builder.WithPredicates(ours)).
		Complete(r)
}
