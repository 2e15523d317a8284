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
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// VirtualVolumeReconciler reclaims the virtual volumes of deleted claims, as
// an external provisioner does its own: with the Delete policy, the twin
// claim goes first (so the real class's provisioner deletes the real volume),
// then the virtual volume; with Retain, both stay for the operator.
type VirtualVolumeReconciler struct {
	client.Client
	Peers *remote.Registry
}

// Reconcile deletes the twin and the volume of a released virtual volume. A
// provider that cannot be reached keeps both: the volume is retried, never
// forgotten, so no twin is left behind.
func (r *VirtualVolumeReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pv := &corev1.PersistentVolume{}
	if err := r.Get(ctx, req.NamespacedName, pv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !policies.ReclaimVirtualVolume(pv) {
		return ctrl.Result{}, nil
	}
	twin, err := policies.ParseTwinClaim(pv.Annotations[sharingv1alpha1.TwinClaimAnnotation])
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("volume %s: %w; delete the twin claim and the volume by hand", pv.Name, err)
	}
	if err := r.deleteTwin(ctx, pv, twin); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.Delete(ctx, pv); client.IgnoreNotFound(err) != nil {
		return ctrl.Result{}, fmt.Errorf("deleting the released virtual volume %s: %w", pv.Name, err)
	}
	return ctrl.Result{}, nil
}

// deleteTwin deletes the twin claim if it is still the one this volume made.
func (r *VirtualVolumeReconciler) deleteTwin(ctx context.Context, pv *corev1.PersistentVolume, ref policies.TwinClaimRef) error {
	uid := pv.Labels[sharingv1alpha1.VirtualClaimUIDLabel]
	if !ref.Remote() {
		twin := &corev1.PersistentVolumeClaim{}
		if err := r.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, twin); err != nil {
			return client.IgnoreNotFound(err)
		}
		if twin.Labels[sharingv1alpha1.VirtualClaimUIDLabel] != uid {
			return nil
		}
		if err := r.Delete(ctx, twin); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the twin claim %s of volume %s: %w", ref, pv.Name, err)
		}
		return nil
	}
	peer, ok := r.Peers.Get(ref.ClusterID)
	if !ok {
		return fmt.Errorf("volume %s: its twin claim %s is on cluster %s, whose peering is not running; retrying", pv.Name, ref, ref.ClusterID)
	}
	claims := peer.Client.CoreV1().PersistentVolumeClaims(ref.Namespace)
	twin, err := claims.Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading the twin claim %s of volume %s: %w", ref, pv.Name, err)
	}
	if twin.Labels[sharingv1alpha1.VirtualClaimUIDLabel] != uid {
		return nil
	}
	uidPrecondition := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &twin.UID}}
	if err := claims.Delete(ctx, ref.Name, uidPrecondition); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting the twin claim %s of volume %s: %w", ref, pv.Name, err)
	}
	return nil
}
