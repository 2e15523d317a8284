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
	"maps"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// A claim's spec.volumeName cannot change once set, and a bound volume's
// source and node affinity cannot either, so a claim is rebound by making
// it again: the target volume is marked (label, the claim's record, Retain
// so that releasing it deletes nothing), the target claim and the claim are
// deleted (the claim's old volume is then reclaimed by its own policy: the
// source goes only now, after the verified copy), the target volume is
// pre-bound to the claim's name and the claim is made again from the record,
// bound to it. The marked volume is the rebind's state: it outlives both
// claims, so a restarted manager goes on from it.

// rebindingVolume is the volume this move is rebinding the claim to, nil
// when no rebind is under way.
func (r *VolumeMoveReconciler) rebindingVolume(ctx context.Context, vm *sharingv1alpha1.VolumeMove) (*corev1.PersistentVolume, error) {
	pvs := &corev1.PersistentVolumeList{}
	if err := r.List(ctx, pvs, client.MatchingLabels{sharingv1alpha1.VolumeMoveLabel: string(vm.UID)}); err != nil {
		return nil, err
	}
	if len(pvs.Items) == 0 {
		return nil, nil
	}
	return &pvs.Items[0], nil
}

// startRebind marks the target volume once both copy Jobs completed.
func (r *VolumeMoveReconciler) startRebind(ctx context.Context, vm *sharingv1alpha1.VolumeMove, claim, target *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	pv := &corev1.PersistentVolume{}
	if err := r.Get(ctx, client.ObjectKey{Name: target.Spec.VolumeName}, pv); err != nil {
		return ctrl.Result{}, fmt.Errorf("reading the target volume %s: %w", target.Spec.VolumeName, err)
	}
	record, err := policies.RecordMovedClaim(claim)
	if err != nil {
		return ctrl.Result{}, err
	}
	before := pv.DeepCopy()
	if pv.Labels == nil {
		pv.Labels = map[string]string{}
	}
	pv.Labels[sharingv1alpha1.VolumeMoveLabel] = string(vm.UID)
	annotate(pv, map[string]string{
		sharingv1alpha1.MovedClaimAnnotation:         record,
		sharingv1alpha1.MovedClaimUIDAnnotation:      string(claim.UID),
		sharingv1alpha1.MovedReclaimPolicyAnnotation: string(pv.Spec.PersistentVolumeReclaimPolicy),
	})
	pv.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
	if err := r.Patch(ctx, pv, client.MergeFrom(before)); err != nil {
		return ctrl.Result{}, fmt.Errorf("marking the target volume %s for the rebind: %w", pv.Name, err)
	}
	r.event(vm, "CopyVerified", "both copy Jobs succeeded (rsync --checksum found nothing left to copy): rebinding %s to volume %s on node %s",
		claim.Name, pv.Name, vm.Spec.NodeName)
	return r.rebind(ctx, vm, pv)
}

// rebind takes the rebind's next step; each one is looked for first, so it
// may be repeated.
func (r *VolumeMoveReconciler) rebind(ctx context.Context, vm *sharingv1alpha1.VolumeMove, pv *corev1.PersistentVolume) (ctrl.Result, error) {
	r.markNotReady(vm, false, policies.MoveRebinding, "rebinding %s to volume %s on node %s", vm.Spec.ClaimName, pv.Name, vm.Spec.NodeName)
	if err := r.deleteCopyJobs(ctx, vm); err != nil {
		return ctrl.Result{}, err
	}
	target, err := r.targetClaim(ctx, vm)
	if err != nil {
		return ctrl.Result{}, err
	}
	if target != nil {
		if err := r.Delete(ctx, target); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting the target claim %s/%s (its volume %s is kept): %w", target.Namespace, target.Name, pv.Name, err)
		}
		return ctrl.Result{RequeueAfter: copyPoll}, nil
	}
	claim := &corev1.PersistentVolumeClaim{}
	err = r.Get(ctx, client.ObjectKey{Namespace: vm.Namespace, Name: vm.Spec.ClaimName}, claim)
	switch {
	case apierrors.IsNotFound(err):
		return r.makeClaimAgain(ctx, vm, pv)
	case err != nil:
		return ctrl.Result{}, err
	case string(claim.UID) == pv.Annotations[sharingv1alpha1.MovedClaimUIDAnnotation]:
		return r.deleteMovedClaim(ctx, vm, claim)
	case claim.Spec.VolumeName == pv.Name && claim.Status.Phase == corev1.ClaimBound:
		return r.finishRebind(ctx, vm, pv)
	case claim.Spec.VolumeName != "" && claim.Spec.VolumeName != pv.Name:
		r.markNotReady(vm, true, policies.MoveRebinding, "claim %s was made again bound to volume %s, not to the moved data in %s: delete the claim, and it is made again bound to %s",
			claim.Name, claim.Spec.VolumeName, pv.Name, pv.Name)
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: copyPoll}, nil // made again (by us, or by Flux): the volume binding binds it to the pre-bound volume
}

// deleteMovedClaim deletes the claim that was copied; its old volume is
// then reclaimed by its own policy (Delete: the source twin goes).
func (r *VolumeMoveReconciler) deleteMovedClaim(ctx context.Context, vm *sharingv1alpha1.VolumeMove, claim *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	if claim.DeletionTimestamp.IsZero() {
		uid := claim.UID
		if err := r.Delete(ctx, claim, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting claim %s/%s to make it again bound to the copy: %w", claim.Namespace, claim.Name, err)
		}
		r.event(vm, "SourceReleased", "deleted claim %s (its old volume %s is reclaimed by its policy) to make it again on node %s", claim.Name, claim.Spec.VolumeName, vm.Spec.NodeName)
	}
	return ctrl.Result{RequeueAfter: copyPoll}, nil
}

// makeClaimAgain pre-binds the target volume to the claim's name and makes
// the claim again from its record, bound to it.
func (r *VolumeMoveReconciler) makeClaimAgain(ctx context.Context, vm *sharingv1alpha1.VolumeMove, pv *corev1.PersistentVolume) (ctrl.Result, error) {
	claim, err := policies.ParseMovedClaim(pv.Annotations[sharingv1alpha1.MovedClaimAnnotation], vm.Namespace, vm.Spec.ClaimName, pv.Name)
	if err != nil {
		r.markNotReady(vm, true, policies.MoveRebinding, "volume %s holds the moved data but %v: make claim %s by hand with spec.volumeName %s", pv.Name, err, vm.Spec.ClaimName, pv.Name)
		return ctrl.Result{}, nil
	}
	if ref := pv.Spec.ClaimRef; ref == nil || ref.Name != vm.Spec.ClaimName || ref.Namespace != vm.Namespace {
		before := pv.DeepCopy()
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: vm.Namespace, Name: vm.Spec.ClaimName}
		if err := r.Patch(ctx, pv, client.MergeFrom(before)); err != nil {
			return ctrl.Result{}, fmt.Errorf("pre-binding volume %s to claim %s/%s: %w", pv.Name, vm.Namespace, vm.Spec.ClaimName, err)
		}
	}
	if err := r.Create(ctx, claim); err != nil && !apierrors.IsAlreadyExists(err) {
		return ctrl.Result{}, fmt.Errorf("making claim %s/%s again bound to volume %s: %w", claim.Namespace, claim.Name, pv.Name, err)
	}
	r.event(vm, "ClaimRebound", "made claim %s again, bound to volume %s on node %s", claim.Name, pv.Name, vm.Spec.NodeName)
	return ctrl.Result{RequeueAfter: copyPoll}, nil
}

// finishRebind gives the target volume its reclaim policy back and drops
// the rebind's marks: the move is done.
func (r *VolumeMoveReconciler) finishRebind(ctx context.Context, vm *sharingv1alpha1.VolumeMove, pv *corev1.PersistentVolume) (ctrl.Result, error) {
	before := pv.DeepCopy()
	if policy := corev1.PersistentVolumeReclaimPolicy(pv.Annotations[sharingv1alpha1.MovedReclaimPolicyAnnotation]); policy == corev1.PersistentVolumeReclaimDelete {
		pv.Spec.PersistentVolumeReclaimPolicy = policy
	}
	pv.Annotations = maps.Clone(pv.Annotations)
	for _, k := range []string{sharingv1alpha1.MovedClaimAnnotation, sharingv1alpha1.MovedClaimUIDAnnotation, sharingv1alpha1.MovedReclaimPolicyAnnotation} {
		delete(pv.Annotations, k)
	}
	delete(pv.Labels, sharingv1alpha1.VolumeMoveLabel)
	if err := r.Patch(ctx, pv, client.MergeFrom(before)); err != nil {
		return ctrl.Result{}, fmt.Errorf("finishing the rebind of volume %s: %w", pv.Name, err)
	}
	r.event(vm, policies.MoveMoved, "claim %s is bound to volume %s on node %s; its next pod is scheduled there", vm.Spec.ClaimName, pv.Name, vm.Spec.NodeName)
	conditions.MarkTrue(vm, meta.ReadyCondition, policies.MoveMoved, "the data of PersistentVolumeClaim %s/%s is on node %s", vm.Namespace, vm.Spec.ClaimName, vm.Spec.NodeName)
	return ctrl.Result{}, nil
}
