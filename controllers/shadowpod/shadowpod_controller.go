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

// Package shadowpod reconciles the provider side of an offloaded pod. A
// ShadowPod in a twin namespace is the consumer's durable intent; this
// controller keeps a real Pod for it, owned by the ShadowPod, and mirrors the
// Pod's phase and readiness back. Because the intent lives here, offloaded
// pods keep running, and are recreated if they vanish, while the consumer is
// unreachable: a network split does not take workloads down.
package shadowpod

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// fieldOwner manages the pods this controller writes and the ShadowPod status.
const fieldOwner = fluxstatus.FieldOwner

const (
	// staleCacheRequeue retries a create that raced the informer.
	staleCacheRequeue = time.Second
	// previousPodRequeue waits for garbage collection of the pod of an
	// earlier ShadowPod of the same name.
	previousPodRequeue = 5 * time.Second
)

// ShadowPodReconciler turns ShadowPods into Pods on this cluster (the
// provider). It writes the ShadowPod's status only: the spec, labels and
// annotations are the consumer's.
type ShadowPodReconciler struct {
	client.Client

	// written keeps a status write from being repeated off a stale cache.
	written lastWrites
}

// +kubebuilder:rbac:groups=virtualkubelet.liqo.io,resources=shadowpods,verbs=get;list;watch
// +kubebuilder:rbac:groups=virtualkubelet.liqo.io,resources=shadowpods/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=virtualkubelet.liqo.io,resources=shadowpods/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=serviceaccounts,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers,verbs=get;list;watch

// Reconcile follows Flux's ladder: get, deletion, patcher, deferred status,
// work. There is no finalizer: deleting a ShadowPod deletes its pod through
// garbage collection, with the pod's own grace period.
func (r *ShadowPodReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	if err := r.Get(ctx, req.NamespacedName, sp); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !sp.DeletionTimestamp.IsZero() {
		// Garbage collection is removing the pod: recreating it would undo the deletion.
		return ctrl.Result{}, nil
	}
	before := sp.DeepCopy()
	s := r.newScope(ctx, sp)
	defer func() {
		retErr = errors.Join(retErr, client.IgnoreNotFound(r.writeStatus(ctx, before, s)))
	}()
	fluxstatus.Begin(sp, sp.Status.ObservedGeneration)
	return r.reconcile(ctx, s)
}

// writeStatus settles the status as Flux's Finalize does and writes it in
// one merge patch when it changed, and not again when the change is the one
// this controller already wrote and the cache has not caught up with (see
// lastWrites), nor when it would be a ShadowPod's first status and says only
// that the pod is starting (see firstReportCanWait). There is a ShadowPod
// per offloaded pod, so this is the provider's hottest write: Flux's patch
// helper would send conditions and the other status fields as two requests,
// and the patch is built from the status alone and answered with metadata
// only (see statusPatchFor).
func (r *ShadowPodReconciler) writeStatus(ctx context.Context, before *virtualkubeletv1alpha1.ShadowPod, s *scope) error {
	sp := s.shadowPod
	fluxstatus.Settle(sp)
	key := client.ObjectKeyFromObject(sp)
	if equality.Semantic.DeepEqual(before.Status, sp.Status) || r.written.echoes(key, sp.UID, before.Status, sp.Status) ||
		firstReportCanWait(before.Status, sp.Status, s.podMerelyStarting) {
		return nil
	}
	patch, target, err := statusPatchFor(sp, before.Status)
	if err != nil {
		return fmt.Errorf("patching status of ShadowPod %s/%s: %w", sp.Namespace, sp.Name, err)
	}
	if err := r.Status().Patch(ctx, target, patch, client.FieldOwner(fieldOwner)); err != nil {
		if apierrors.IsNotFound(err) {
			r.written.forget(key)
		}
		return fmt.Errorf("patching status of ShadowPod %s/%s: %w", sp.Namespace, sp.Name, err)
	}
	r.written.record(key, sp.UID, before.Status, sp.Status)
	return nil
}

// scope is everything one reconcile knows about a ShadowPod.
type scope struct {
	shadowPod *virtualkubeletv1alpha1.ShadowPod
	// consumerID is the twin namespace's label; empty when the namespace is not a twin.
	consumerID string
	// namespaceTerminating: no pod can be created in the namespace any more.
	namespaceTerminating bool
	// podMerelyStarting: the status mirrors a pod that says nothing yet (see merelyStarting).
	podMerelyStarting bool
	err               error
}

func (r *ShadowPodReconciler) newScope(ctx context.Context, sp *virtualkubeletv1alpha1.ShadowPod) *scope {
	s := &scope{shadowPod: sp}
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, client.ObjectKey{Name: sp.Namespace}, ns); err != nil {
		if !apierrors.IsNotFound(err) {
			s.err = fmt.Errorf("reading Namespace %s: %w", sp.Namespace, err)
		}
		return s
	}
	s.consumerID = ns.Labels[sharingv1alpha1.TwinNamespaceLabel]
	s.namespaceTerminating = !ns.DeletionTimestamp.IsZero()
	return s
}

// reconcile makes the pod exist, keeps what may change of it in line with
// the ShadowPod, and mirrors its state. API errors are transient: Ready=False
// and a backoff. What only the consumer can fix is Stalled.
func (r *ShadowPodReconciler) reconcile(ctx context.Context, s *scope) (ctrl.Result, error) {
	sp := s.shadowPod
	if s.err != nil {
		fluxstatus.MarkNotReady(sp, false, meta.ReconciliationFailedReason, "%v", s.err)
		return ctrl.Result{}, s.err
	}
	if s.consumerID == "" {
		// Only twins say whose pods they hold; a pod elsewhere would run for no one.
		fluxstatus.MarkNotReady(sp, true, NotInTwinNamespaceReason,
			"ShadowPod %s/%s is in namespace %s, which is not a twin namespace (no label %s): ShadowPods run only in the twins consumers request",
			sp.Namespace, sp.Name, sp.Namespace, sharingv1alpha1.TwinNamespaceLabel)
		return ctrl.Result{}, nil
	}
	pod := &corev1.Pod{}
	err := r.Get(ctx, client.ObjectKeyFromObject(sp), pod)
	switch {
	case apierrors.IsNotFound(err):
		return r.reconcileMissingPod(ctx, s)
	case err != nil:
		err = fmt.Errorf("reading Pod %s/%s: %w", sp.Namespace, sp.Name, err)
		fluxstatus.MarkNotReady(sp, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	case !metav1.IsControlledBy(pod, sp):
		return podNameTaken(sp, pod), nil
	}
	if err := r.syncPod(ctx, s, pod); err != nil {
		fluxstatus.MarkNotReady(sp, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	}
	s.podMerelyStarting = mirrorPod(sp, pod)
	return ctrl.Result{}, nil
}

// reconcileMissingPod creates the pod, or recreates one that was deleted by
// anything but garbage collection (an eviction, a drain, a person), unless it
// had run to completion: a Job's finished pod must not run twice.
func (r *ShadowPodReconciler) reconcileMissingPod(ctx context.Context, s *scope) (ctrl.Result, error) {
	sp := s.shadowPod
	previous := sp.Status.Phase
	if ranToCompletion(previous, sp.Spec.Pod.RestartPolicy) {
		markCompletedPodGone(sp)
		return ctrl.Result{}, nil
	}
	if s.namespaceTerminating {
		fluxstatus.MarkNotReady(sp, false, virtualkubeletv1alpha1.PodCreationFailedReason,
			"namespace %s is terminating: pod %s cannot be created there", sp.Namespace, sp.Name)
		return ctrl.Result{}, nil
	}
	pod, err := desiredPod(sp, s.consumerID, r.Scheme())
	if err != nil {
		fluxstatus.MarkNotReady(sp, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	}
	offer, err := r.offerFor(ctx, s.consumerID)
	if err != nil {
		fluxstatus.MarkNotReady(sp, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	}
	if msg := policyViolation(pod, offer); msg != "" {
		fluxstatus.MarkNotReady(sp, true, PodPolicyViolationReason, "%s", msg)
		return ctrl.Result{}, nil
	}
	// The recreations so far: the cache may not show this controller's own
	// last one yet when the pod it made is deleted again at once (a drain's
	// retry; kwok replays a deletion onto the new pod of the same name), and
	// a recreation left uncounted is a restart the consumer never sees.
	done := max(recreations(sp), r.written.recreations(client.ObjectKeyFromObject(sp), sp.UID))
	if previous != "" {
		// The consumer reads the count from the pod it watches.
		metav1.SetMetaDataAnnotation(&pod.ObjectMeta, virtualkubeletv1alpha1.RecreationsAnnotation, strconv.Itoa(done+1))
	}
	err = r.Create(ctx, pod, client.FieldOwner(fieldOwner))
	switch {
	case apierrors.IsAlreadyExists(err):
		// The informer has not seen a pod that exists: look again shortly.
		return ctrl.Result{RequeueAfter: staleCacheRequeue}, nil
	case apierrors.IsInvalid(err):
		fluxstatus.MarkNotReady(sp, true, virtualkubeletv1alpha1.PodCreationFailedReason,
			"the API server refused pod %s/%s: %v; the consumer must change the pod it offloads", sp.Namespace, sp.Name, err)
		return ctrl.Result{}, nil
	case err != nil:
		// Forbidden (a quota, an admission webhook) may pass later.
		fluxstatus.MarkNotReady(sp, false, virtualkubeletv1alpha1.PodCreationFailedReason, "creating pod %s/%s: %v", sp.Namespace, sp.Name, err)
		return ctrl.Result{}, fmt.Errorf("creating Pod %s/%s for ShadowPod: %w", sp.Namespace, sp.Name, err)
	}
	if previous != "" {
		// A pod existed before (its phase was mirrored) and is gone.
		countRecreation(sp, previous, done)
	}
	s.podMerelyStarting = mirrorPod(sp, pod)
	return ctrl.Result{}, nil
}

// podNameTaken refuses to adopt a pod this ShadowPod does not control. The
// pod of an earlier ShadowPod of the same name goes by itself (garbage
// collection); anyone else's is left alone, and only a person can resolve it.
func podNameTaken(sp *virtualkubeletv1alpha1.ShadowPod, pod *corev1.Pod) ctrl.Result {
	if owner := metav1.GetControllerOf(pod); owner != nil && owner.Kind == "ShadowPod" && owner.Name == sp.Name &&
		owner.APIVersion == virtualkubeletv1alpha1.GroupVersion.String() {
		fluxstatus.MarkNotReady(sp, false, PodNameTakenReason,
			"pod %s/%s still belongs to an earlier ShadowPod of the same name: waiting for garbage collection to delete it", pod.Namespace, pod.Name)
		return ctrl.Result{RequeueAfter: previousPodRequeue}
	}
	fluxstatus.MarkNotReady(sp, true, PodNameTakenReason,
		"pod %s/%s exists and is not controlled by this ShadowPod: nothing was changed; delete that pod, or offload the pod under another name",
		pod.Namespace, pod.Name)
	return ctrl.Result{}
}
