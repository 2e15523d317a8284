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
	"errors"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/runtime/patch"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// VolumeMoveReconciler moves the data of a claim of class liqo to another
// node, as a VolumeMove in git asks: a target claim of class liqo bound at
// that node (by VirtualStorageReconciler, like any claim), a pair of rsync
// Jobs that copy and verify, then the claim deleted and made again bound to
// the target's volume, so its next pod is scheduled there. The source is
// deleted (by its volume's reclaim policy) only after both Jobs succeeded,
// and every step first asks policies.VolumeMoveCheck whether the claim may
// still move: a pod that mounts it stops the move before the source is touched.
type VolumeMoveReconciler struct {
	client.Client
	// Peers tells whether a virtual node's peering runs.
	Peers *remote.Registry
	// LocalStorageClass is the class of local twins (empty: the default class).
	LocalStorageClass string
	// Image runs rsync in the copy Jobs.
	Image string
	// Recorder reports each step on the VolumeMove.
	Recorder events.EventRecorder
}

// VolumeMoveJobs selects the copy Jobs of VolumeMoves: the manager's cache
// holds only those, not every Job of the cluster.
var VolumeMoveJobs = func() labels.Selector {
	req, err := labels.NewRequirement(sharingv1alpha1.VolumeMoveLabel, selection.Exists, nil)
	if err != nil {
		panic(err)
	}
	return labels.NewSelector().Add(*req)
}()

// blockedRecheck is how often a move that cannot run is decided again: pods
// and nodes are not watched for it, so a claim stopped being mounted is seen
// within this.
const blockedRecheck = 10 * time.Second

// +kubebuilder:rbac:groups=sharing.liqo.io,resources=volumemoves,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=volumemoves/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;delete
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;create;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch

// Reconcile reads the move and writes its status once, Flux's way.
func (r *VolumeMoveReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	vm := &sharingv1alpha1.VolumeMove{}
	if err := r.Get(ctx, req.NamespacedName, vm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !vm.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil // what it made is owned by it: the garbage collector deletes it
	}
	patcher := patch.NewSerialPatcher(vm, r.Client)
	fluxstatus.Begin(vm, vm.Status.ObservedGeneration)
	defer func() { retErr = errors.Join(retErr, fluxstatus.Finalize(ctx, vm, patcher)) }()
	return r.reconcile(ctx, vm)
}

// reconcile is the move's ladder: a rebind under way first (the claim may
// be gone mid-way), then the check, then the copy.
func (r *VolumeMoveReconciler) reconcile(ctx context.Context, vm *sharingv1alpha1.VolumeMove) (ctrl.Result, error) {
	if err := policies.ValidateVolumeMove(vm.Spec.ClaimName, vm.Spec.NodeName); err != nil {
		r.markNotReady(vm, true, "InvalidSpec", "%v", err)
		return ctrl.Result{}, nil
	}
	if pv, err := r.rebindingVolume(ctx, vm); err != nil || pv != nil {
		if err != nil {
			return ctrl.Result{}, err
		}
		return r.rebind(ctx, vm, pv)
	}
	state, err := r.observe(ctx, vm)
	if err != nil {
		return ctrl.Result{}, err
	}
	check := policies.VolumeMoveCheck(state)
	switch {
	case check.Done:
		conditions.MarkTrue(vm, meta.ReadyCondition, check.Reason, "%s", check.Message)
		return ctrl.Result{}, nil
	case !check.Proceed:
		if check.Reason == policies.MoveClaimInUse {
			if err := r.abandonCopy(ctx, vm, "a pod mounts "+vm.Spec.ClaimName); err != nil {
				return ctrl.Result{}, err
			}
		}
		r.markNotReady(vm, check.Stalled, check.Reason, "%s", check.Message)
		if check.Stalled {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{RequeueAfter: blockedRecheck}, nil
	}
	return r.copy(ctx, vm, state)
}

// observe reads what VolumeMoveCheck decides on.
func (r *VolumeMoveReconciler) observe(ctx context.Context, vm *sharingv1alpha1.VolumeMove) (policies.VolumeMoveState, error) {
	s := policies.VolumeMoveState{ClaimName: vm.Spec.ClaimName, TargetNode: vm.Spec.NodeName}
	claim := &corev1.PersistentVolumeClaim{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: vm.Namespace, Name: vm.Spec.ClaimName}, claim); err == nil {
		s.Claim = claim
	} else if !apierrors.IsNotFound(err) {
		return s, err
	}
	if s.Claim != nil && s.Claim.Spec.VolumeName != "" {
		pv := &corev1.PersistentVolume{}
		if err := r.Get(ctx, client.ObjectKey{Name: s.Claim.Spec.VolumeName}, pv); err == nil {
			s.Volume = pv
		} else if !apierrors.IsNotFound(err) {
			return s, err
		}
	}
	node := &corev1.Node{}
	if err := r.Get(ctx, client.ObjectKey{Name: vm.Spec.NodeName}, node); err == nil {
		s.Node = node
		if id := node.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel]; id != "" {
			_, s.PeerRunning = r.Peers.Get(id)
		}
	} else if !apierrors.IsNotFound(err) {
		return s, err
	}
	var err error
	if s.LocalClassExists, err = r.localClassExists(ctx); err != nil {
		return s, err
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(vm.Namespace)); err != nil {
		return s, err
	}
	s.MountedBy = policies.PodsMountingClaim(pods.Items, vm.Spec.ClaimName, string(vm.UID))
	return s, nil
}

// localClassExists reports whether local twins have a class: the named
// one, or a default class.
func (r *VolumeMoveReconciler) localClassExists(ctx context.Context) (bool, error) {
	if r.LocalStorageClass != "" {
		err := r.Get(ctx, client.ObjectKey{Name: r.LocalStorageClass}, &storagev1.StorageClass{})
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return err == nil, err
	}
	classes := &storagev1.StorageClassList{}
	if err := r.List(ctx, classes); err != nil {
		return false, err
	}
	for _, c := range classes.Items {
		if c.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" {
			return true, nil
		}
	}
	return false, nil
}

// markNotReady sets Ready=False and, when the reason is new, says so in an
// event: each reconcile of a blocked move would otherwise repeat it.
func (r *VolumeMoveReconciler) markNotReady(vm *sharingv1alpha1.VolumeMove, stalled bool, reason, format string, args ...any) {
	if conditions.GetReason(vm, meta.ReadyCondition) != reason {
		kind := corev1.EventTypeNormal
		if stalled || reason == policies.MoveClaimInUse || reason == policies.MoveCopyFailed {
			kind = corev1.EventTypeWarning
		}
		r.Recorder.Eventf(vm, nil, kind, reason, "Move", format, args...)
	}
	fluxstatus.MarkNotReady(vm, stalled, reason, format, args...)
}

// SetupWithManager watches moves, and the Jobs and target claims they own.
func (r *VolumeMoveReconciler) SetupWithManager(mgr ctrl.Manager) error {
	return ctrl.NewControllerManagedBy(mgr).Named("volumemove").
		For(&sharingv1alpha1.VolumeMove{}).
		Owns(&batchv1.Job{}).
		Owns(&corev1.PersistentVolumeClaim{}).
		Complete(r)
}

func (r *VolumeMoveReconciler) event(vm *sharingv1alpha1.VolumeMove, reason, format string, args ...any) {
	r.Recorder.Eventf(vm, nil, corev1.EventTypeNormal, reason, "Move", format, args...)
}
