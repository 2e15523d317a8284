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
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// copyPoll is how often a copy step that waits on something not owned by
// the move (the receiver pod's address) is looked at again.
const copyPoll = 3 * time.Second

// copy takes the copy's next step (policies.NextCopyStep): target claim,
// receiver, sender, then the rebind once both Jobs completed.
func (r *VolumeMoveReconciler) copy(ctx context.Context, vm *sharingv1alpha1.VolumeMove, s policies.VolumeMoveState) (ctrl.Result, error) {
	target, err := r.targetClaim(ctx, vm)
	if err != nil {
		return ctrl.Result{}, err
	}
	receiver, err := r.job(ctx, vm, "receive")
	if err != nil {
		return ctrl.Result{}, err
	}
	sender, err := r.job(ctx, vm, "send")
	if err != nil {
		return ctrl.Result{}, err
	}
	address, err := r.receiverAddress(ctx, vm, receiver)
	if err != nil {
		return ctrl.Result{}, err
	}
	c := r.moveCopy(vm, address)
	switch step := policies.NextCopyStep(vm.Spec.NodeName, target, receiver, sender, address); step {
	case policies.CopyRestart:
		if err := r.abandonCopy(ctx, vm, "spec.nodeName changed"); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: copyPoll}, nil
	case policies.CopyCreateTarget:
		return ctrl.Result{}, r.createTarget(ctx, vm, s.Claim, c)
	case policies.CopyWaitTarget:
		r.markNotReady(vm, false, policies.MoveTargetPending, "the target claim %s/%s is not bound on node %s yet; its events say why", vm.Namespace, c.TargetClaim, vm.Spec.NodeName)
		return ctrl.Result{}, nil
	case policies.CopyCreateReceiver:
		return ctrl.Result{}, r.createJob(ctx, vm, policies.ReceiverJob(c), "the receiver")
	case policies.CopyWaitReceiverIP:
		r.markNotReady(vm, false, policies.MoveCopying, "waiting for the receiver Job %s to have a pod address", receiver.Name)
		return ctrl.Result{RequeueAfter: copyPoll}, nil
	case policies.CopyCreateSender:
		return ctrl.Result{}, r.createJob(ctx, vm, policies.SenderJob(c), "the sender, to "+address)
	case policies.CopyFailed:
		r.markNotReady(vm, true, policies.MoveCopyFailed,
			"a copy Job failed (%s, %s): the claim %s and its data are untouched; the target claim %s and the Jobs are kept to read their logs; delete this VolumeMove to remove them, and write it again to retry",
			jobState(receiver), jobState(sender), vm.Spec.ClaimName, c.TargetClaim)
		return ctrl.Result{}, nil
	case policies.CopyWaitJobs:
		r.markNotReady(vm, false, policies.MoveCopying, "copying %s to %s (%s, %s)", vm.Spec.ClaimName, vm.Spec.NodeName, jobState(receiver), jobState(sender))
		return ctrl.Result{}, nil
	default: // policies.CopyVerifiedRebind
		return r.startRebind(ctx, vm, s.Claim, target)
	}
}

// moveCopy is what the Jobs of this move are made of.
func (r *VolumeMoveReconciler) moveCopy(vm *sharingv1alpha1.VolumeMove, address string) policies.MoveCopy {
	uid := string(vm.UID)
	return policies.MoveCopy{
		Namespace: vm.Namespace, MoveUID: uid, Image: r.Image,
		Owner:       *metav1.NewControllerRef(vm, sharingv1alpha1.GroupVersion.WithKind("VolumeMove")),
		SourceClaim: vm.Spec.ClaimName, TargetClaim: policies.MoveObjectName(uid), ReceiverAddress: address,
	}
}

// targetClaim is the move's target claim, nil before it is made. A claim of
// that name that the move did not make is an error, never used.
func (r *VolumeMoveReconciler) targetClaim(ctx context.Context, vm *sharingv1alpha1.VolumeMove) (*corev1.PersistentVolumeClaim, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	err := r.Get(ctx, client.ObjectKey{Namespace: vm.Namespace, Name: policies.MoveObjectName(string(vm.UID))}, pvc)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if pvc.Labels[sharingv1alpha1.VolumeMoveLabel] != string(vm.UID) {
		return nil, fmt.Errorf("claim %s/%s exists but was not made by this move (label %s): rename or delete it", pvc.Namespace, pvc.Name, sharingv1alpha1.VolumeMoveLabel)
	}
	return pvc, nil
}

func (r *VolumeMoveReconciler) job(ctx context.Context, vm *sharingv1alpha1.VolumeMove, role string) (*batchv1.Job, error) {
	j := &batchv1.Job{}
	err := r.Get(ctx, client.ObjectKey{Namespace: vm.Namespace, Name: policies.MoveJobName(string(vm.UID), role)}, j)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if j.Labels[sharingv1alpha1.VolumeMoveLabel] != string(vm.UID) {
		return nil, fmt.Errorf("job %s/%s exists but was not made by this move (label %s): delete it", j.Namespace, j.Name, sharingv1alpha1.VolumeMoveLabel)
	}
	return j, nil
}

// receiverAddress is the IP of the receiver Job's pod, "" until it has one.
// On a virtual node it is the address the fabric gives the provider's pod.
func (r *VolumeMoveReconciler) receiverAddress(ctx context.Context, vm *sharingv1alpha1.VolumeMove, receiver *batchv1.Job) (string, error) {
	if receiver == nil {
		return "", nil
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(vm.Namespace), client.MatchingLabels{batchv1.JobNameLabel: receiver.Name}); err != nil {
		return "", err
	}
	for _, p := range pods.Items {
		if p.Status.PodIP != "" && p.Labels[sharingv1alpha1.VolumeMoveLabel] == string(vm.UID) {
			return p.Status.PodIP, nil
		}
	}
	return "", nil
}

// createTarget makes the move's Secret and its target claim: of class liqo,
// the size of the claim, with the target node already selected, so
// VirtualStorageReconciler binds it there at once (a twin on the peer for a
// virtual node, in the storage namespace for a local one).
func (r *VolumeMoveReconciler) createTarget(ctx context.Context, vm *sharingv1alpha1.VolumeMove, claim *corev1.PersistentVolumeClaim, c policies.MoveCopy) error {
	password := make([]byte, 24)
	if _, err := rand.Read(password); err != nil {
		return err
	}
	labels := map[string]string{sharingv1alpha1.VolumeMoveLabel: c.MoveUID}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: vm.Namespace, Name: policies.MoveObjectName(c.MoveUID), Labels: labels, OwnerReferences: []metav1.OwnerReference{c.Owner}},
		Data:       map[string][]byte{policies.MovePasswordKey: []byte(hex.EncodeToString(password))},
	}
	if err := r.Create(ctx, secret); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the Secret %s/%s of the copy: %w", secret.Namespace, secret.Name, err)
	}
	target := policies.TwinClaim(claim, vm.Namespace, c.TargetClaim, claim.Spec.StorageClassName, vm.Spec.NodeName)
	target.Labels = labels
	target.Annotations = map[string]string{policies.SelectedNodeAnnotation: vm.Spec.NodeName}
	target.OwnerReferences = []metav1.OwnerReference{c.Owner}
	if err := r.Create(ctx, target); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the target claim %s/%s on node %s: %w", target.Namespace, target.Name, vm.Spec.NodeName, err)
	}
	r.event(vm, policies.MoveCreatingTarget, "created the target claim %s/%s on node %s", target.Namespace, target.Name, vm.Spec.NodeName)
	r.markNotReady(vm, false, policies.MoveCreatingTarget, "created the target claim %s/%s on node %s", target.Namespace, target.Name, vm.Spec.NodeName)
	return nil
}

func (r *VolumeMoveReconciler) createJob(ctx context.Context, vm *sharingv1alpha1.VolumeMove, j *batchv1.Job, role string) error {
	if err := r.Create(ctx, j); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating the copy Job %s/%s (%s): %w", j.Namespace, j.Name, role, err)
	}
	r.event(vm, "JobCreated", "created the copy Job %s (%s)", j.Name, role)
	r.markNotReady(vm, false, policies.MoveCopying, "created the copy Job %s (%s)", j.Name, role)
	return nil
}

// abandonCopy deletes what a move that may not run any more made: the
// Jobs, the Secret and the target claim (and so the target's twin). The
// claim and its data are never touched here.
func (r *VolumeMoveReconciler) abandonCopy(ctx context.Context, vm *sharingv1alpha1.VolumeMove, why string) error {
	target, err := r.targetClaim(ctx, vm)
	if err != nil {
		return err
	}
	if err := r.deleteCopyJobs(ctx, vm); err != nil {
		return err
	}
	if target == nil {
		return nil
	}
	if err := r.Delete(ctx, target); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting the target claim %s/%s of a move that cannot run: %w", target.Namespace, target.Name, err)
	}
	r.Recorder.Eventf(vm, nil, corev1.EventTypeWarning, "MoveStopped", "Move",
		"%s: the copy is stopped and its target claim %s deleted; the claim %s and its data are untouched", why, target.Name, vm.Spec.ClaimName)
	return nil
}

// deleteCopyJobs deletes the Jobs (with their pods) and the Secret.
func (r *VolumeMoveReconciler) deleteCopyJobs(ctx context.Context, vm *sharingv1alpha1.VolumeMove) error {
	uid := string(vm.UID)
	background := client.PropagationPolicy(metav1.DeletePropagationBackground)
	for _, role := range []string{"receive", "send"} {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: vm.Namespace, Name: policies.MoveJobName(uid, role)}}
		if err := r.Delete(ctx, j, background); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the copy Job %s/%s: %w", j.Namespace, j.Name, err)
		}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: vm.Namespace, Name: policies.MoveObjectName(uid)}}
	if err := r.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting the Secret %s/%s of the copy: %w", secret.Namespace, secret.Name, err)
	}
	return nil
}

// jobState says how a Job stands, for messages.
func jobState(j *batchv1.Job) string {
	if j == nil {
		return "not created"
	}
	for _, c := range j.Status.Conditions {
		if c.Status == corev1.ConditionTrue && (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) {
			return fmt.Sprintf("%s %s: %s", j.Name, c.Type, c.Message)
		}
	}
	return j.Name + " running"
}
