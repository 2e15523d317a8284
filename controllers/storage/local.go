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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// bindLocal binds a claim whose pod runs on a local node: a twin claim of
// the real class in the storage namespace, handed the same node, then a
// virtual volume mirroring the real one. The twin's changes requeue the
// virtual claim (setup.go), so nothing here polls.
func (r *VirtualStorageReconciler) bindLocal(ctx context.Context, pvc *corev1.PersistentVolumeClaim, b policies.StorageBinding,
	reclaim corev1.PersistentVolumeReclaimPolicy) (ctrl.Result, error) {
	if err := r.ensureStorageNamespace(ctx); err != nil {
		return ctrl.Result{}, err
	}
	name := policies.LocalTwinClaimName(string(pvc.UID))
	twin := &corev1.PersistentVolumeClaim{}
	err := r.Get(ctx, client.ObjectKey{Namespace: r.StorageNamespace, Name: name}, twin)
	if apierrors.IsNotFound(err) {
		twin = policies.TwinClaim(pvc, r.StorageNamespace, name, r.localClass(), b.Node)
		if err := r.Create(ctx, twin); err != nil && !apierrors.IsAlreadyExists(err) {
			return ctrl.Result{}, fmt.Errorf("creating the twin claim %s/%s of %s/%s: %w", twin.Namespace, twin.Name, pvc.Namespace, pvc.Name, err)
		}
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if twin.Labels[sharingv1alpha1.VirtualClaimUIDLabel] != string(pvc.UID) {
		return ctrl.Result{}, fmt.Errorf("claim %s/%s exists but is not the twin of %s/%s (label %s): delete it or let it be",
			twin.Namespace, twin.Name, pvc.Namespace, pvc.Name, sharingv1alpha1.VirtualClaimUIDLabel)
	}
	if twin.Status.Phase != corev1.ClaimBound || twin.Spec.VolumeName == "" {
		return ctrl.Result{}, nil
	}
	real := &corev1.PersistentVolume{}
	if err := r.Get(ctx, client.ObjectKey{Name: twin.Spec.VolumeName}, real); err != nil {
		return ctrl.Result{}, fmt.Errorf("reading volume %s of the twin claim %s/%s: %w", twin.Spec.VolumeName, twin.Namespace, twin.Name, err)
	}
	return ctrl.Result{}, r.createVolume(ctx, policies.MirrorLocalVolume(pvc, twin, real, reclaim))
}

// localClass is the twins' class; nil lets the API server give the default.
func (r *VirtualStorageReconciler) localClass() *string {
	if r.LocalStorageClass == "" {
		return nil
	}
	class := r.LocalStorageClass
	return &class
}

func (r *VirtualStorageReconciler) ensureStorageNamespace(ctx context.Context) error {
	ns := &corev1.Namespace{}
	err := r.Get(ctx, client.ObjectKey{Name: r.StorageNamespace}, ns)
	if !apierrors.IsNotFound(err) {
		return err
	}
	ns = &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: r.StorageNamespace}}
	if err := r.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the storage namespace %s (--storage-namespace): %w", r.StorageNamespace, err)
	}
	return nil
}

// createVolume creates the virtual volume; one made by an earlier reconcile
// is kept as it is (a volume's source cannot change).
func (r *VirtualStorageReconciler) createVolume(ctx context.Context, pv *corev1.PersistentVolume) error {
	if err := r.Create(ctx, pv); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the virtual volume %s of claim %s/%s: %w", pv.Name, pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name, err)
	}
	return nil
}
