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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// syncBound keeps a bound claim and its twin together: a remote twin's
// phase and volume shown on the virtual volume, and a grown request passed
// to the twin, whose new capacity then grows the virtual volume and claim.
// A remote twin is polled while it is not bound or is being resized.
func (r *VirtualStorageReconciler) syncBound(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	pv := &corev1.PersistentVolume{}
	if err := r.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pv.Annotations[policies.ProvisionedByAnnotation] != sharingv1alpha1.VirtualStorageProvisioner {
		return ctrl.Result{}, nil
	}
	ref, err := policies.ParseTwinClaim(pv.Annotations[sharingv1alpha1.TwinClaimAnnotation])
	if err != nil {
		return ctrl.Result{}, nil // not a volume this controller can follow; ReclaimVirtualVolume reports it
	}
	twin, err := r.readTwin(ctx, ref)
	if apierrors.IsNotFound(err) {
		return ctrl.Result{}, r.twinLost(ctx, pvc, pv, ref)
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	if ref.Remote() {
		before := pv.DeepCopy()
		annotate(pv, policies.RemoteVolumeAnnotations(twin))
		if err := r.Patch(ctx, pv, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, fmt.Errorf("annotating volume %s with its twin's state: %w", pv.Name, err)
		}
	}
	resize := policies.ResizeFor(pvc, twin, pv)
	if resize.GrowTwin {
		if err := r.growTwin(ctx, ref, twin, resize.Request); err != nil {
			r.Recorder.Eventf(pvc, nil, corev1.EventTypeWarning, "ResizeFailed", "Resize", "%v", err)
			return ctrl.Result{}, err
		}
	}
	if resize.GrowVolume {
		if err := r.growVolume(ctx, pvc, pv, resize.Capacity); err != nil {
			return ctrl.Result{}, err
		}
	}
	waiting := twin.Status.Phase != corev1.ClaimBound || resize.GrowTwin ||
		twin.Spec.Resources.Requests.Storage().Cmp(*twin.Status.Capacity.Storage()) > 0
	if ref.Remote() && waiting {
		return ctrl.Result{RequeueAfter: policies.RemotePollInterval(time.Since(pv.CreationTimestamp.Time))}, nil
	}
	return ctrl.Result{}, nil
}

// twinLost marks a virtual volume whose twin claim is gone (deleted on the
// provider, or with its namespace) and says so on the claim, once. The
// twin is never made again: a new one would be empty, and the pods would
// run on it as if it held their data.
func (r *VirtualStorageReconciler) twinLost(ctx context.Context, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, ref policies.TwinClaimRef) error {
	if pv.Annotations[sharingv1alpha1.RemotePhaseAnnotation] == policies.TwinLost {
		return nil
	}
	before := pv.DeepCopy()
	annotate(pv, map[string]string{sharingv1alpha1.RemotePhaseAnnotation: policies.TwinLost})
	if err := r.Patch(ctx, pv, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("marking volume %s as lost: %w", pv.Name, err)
	}
	r.Recorder.Eventf(pvc, nil, corev1.EventTypeWarning, "TwinClaimLost", "Sync",
		"the twin claim %s that holds this claim's data is gone; the claim is not bound to any data any more: delete it (and its pods) to start anew", ref)
	return nil
}

// readTwin reads the twin claim, here or on its provider.
func (r *VirtualStorageReconciler) readTwin(ctx context.Context, ref policies.TwinClaimRef) (*corev1.PersistentVolumeClaim, error) {
	if !ref.Remote() {
		twin := &corev1.PersistentVolumeClaim{}
		return twin, r.Get(ctx, client.ObjectKey{Namespace: ref.Namespace, Name: ref.Name}, twin)
	}
	peer, ok := r.Peers.Get(ref.ClusterID)
	if !ok {
		return nil, fmt.Errorf("twin claim %s: the peering with cluster %s is not running", ref, ref.ClusterID)
	}
	return peer.Client.CoreV1().PersistentVolumeClaims(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
}

// growTwin asks the twin for the new size; the twin's class must allow
// volume expansion, or the API server refuses and the error names it.
func (r *VirtualStorageReconciler) growTwin(ctx context.Context, ref policies.TwinClaimRef, twin *corev1.PersistentVolumeClaim, size resource.Quantity) error {
	twin = twin.DeepCopy()
	twin.Spec.Resources.Requests[corev1.ResourceStorage] = size
	var err error
	if ref.Remote() {
		peer, ok := r.Peers.Get(ref.ClusterID)
		if !ok {
			return fmt.Errorf("twin claim %s: the peering with cluster %s is not running", ref, ref.ClusterID)
		}
		_, err = peer.Client.CoreV1().PersistentVolumeClaims(ref.Namespace).Update(ctx, twin, metav1.UpdateOptions{})
	} else {
		err = r.Update(ctx, twin)
	}
	if err != nil && !apierrors.IsConflict(err) {
		return fmt.Errorf("growing the twin claim %s to %s (its class must allow volume expansion): %w", ref, size.String(), err)
	}
	return err
}

// growVolume shows the twin's new capacity on the virtual volume and claim,
// as an external resizer does for its own volumes.
func (r *VirtualStorageReconciler) growVolume(ctx context.Context, pvc *corev1.PersistentVolumeClaim, pv *corev1.PersistentVolume, capacity resource.Quantity) error {
	before := pv.DeepCopy()
	pv.Spec.Capacity[corev1.ResourceStorage] = capacity
	if err := r.Patch(ctx, pv, client.MergeFrom(before)); err != nil {
		return fmt.Errorf("growing volume %s to %s: %w", pv.Name, capacity.String(), err)
	}
	beforeClaim := pvc.DeepCopy()
	if pvc.Status.Capacity == nil {
		pvc.Status.Capacity = corev1.ResourceList{}
	}
	pvc.Status.Capacity[corev1.ResourceStorage] = capacity
	if err := r.Status().Patch(ctx, pvc, client.MergeFrom(beforeClaim)); err != nil {
		return fmt.Errorf("showing the new capacity %s on claim %s/%s: %w", capacity.String(), pvc.Namespace, pvc.Name, err)
	}
	return nil
}
