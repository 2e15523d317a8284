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

package namespaceoffloading

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/policies"
)

// reconcileDelete unoffloads, in an order that loses nothing:
//  1. offloaded pods are evicted through the Eviction API, so the namespace's
//     PodDisruptionBudgets hold; their controllers recreate them locally,
//     because the pod webhook stops placing pods once deletion has started;
//  2. the twin requests are withdrawn and the providers remove the twins once
//     empty. A peer that is not connected is left alone: a broken peer never
//     loses its workloads;
//  3. the scheduling label goes last, so that no pod of the namespace is
//     refused while the NamespaceOffloading still exists.
func (r *NamespaceOffloadingReconciler) reconcileDelete(ctx context.Context, no *offloadingv1alpha1.NamespaceOffloading) (ctrl.Result, error) {
	progress, err := r.evictOffloadedPods(ctx, no.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}
	if progress.remaining > 0 {
		fluxstatus.MarkNotReady(no, false, string(offloadingv1alpha1.TerminatingOffloadingPhase), "%s", progress.message())
		no.Status.OffloadingPhase = offloadingv1alpha1.TerminatingOffloadingPhase
		return ctrl.Result{RequeueAfter: fastResync}, nil
	}
	pending := 0
	for _, peer := range r.Peers.List() {
		if err := withdrawTwin(ctx, peer.Client, peer.TenantNamespace, no.Status.RemoteNamespaceName); err != nil {
			return ctrl.Result{}, err
		}
		// A request that cannot be read may still hold the twin: keep the finalizer.
		still, err := twinRequested(ctx, peer.Client, peer.TenantNamespace, no.Status.RemoteNamespaceName)
		if err != nil {
			return ctrl.Result{}, fmt.Errorf("reading the twin request for namespace %s on cluster %s: %w", no.Status.RemoteNamespaceName, peer.ClusterName, err)
		}
		if still {
			pending++
		}
	}
	if pending > 0 {
		fluxstatus.MarkNotReady(no, false, string(offloadingv1alpha1.TerminatingOffloadingPhase), "unoffloading: waiting for %d provider(s) to remove the twin namespace", pending)
		no.Status.OffloadingPhase = offloadingv1alpha1.TerminatingOffloadingPhase
		return ctrl.Result{RequeueAfter: fastResync}, nil
	}
	if err := r.unmarkSchedulingEnabled(ctx, no.Namespace); err != nil {
		return ctrl.Result{}, err
	}
	controllerutil.RemoveFinalizer(no, Finalizer)
	return ctrl.Result{}, nil
}

// evictionProgress is what is left of step 1 of an unoffload.
type evictionProgress struct {
	// remaining counts the pods still bound to a virtual node.
	remaining int
	// blocked names a pod whose eviction a PodDisruptionBudget refused, and
	// why, as the API server said it; empty when none was refused.
	blockedPod, blockedBy string
}

// message is the Ready condition's message while pods remain.
func (p evictionProgress) message() string {
	if p.blockedPod == "" {
		return fmt.Sprintf("unoffloading: %d offloaded pod(s) still terminating", p.remaining)
	}
	return fmt.Sprintf("unoffloading: %d offloaded pod(s) still to evict; the eviction of pod %s is refused by a PodDisruptionBudget: %s",
		p.remaining, p.blockedPod, p.blockedBy)
}

// evictOffloadedPods asks the Eviction API to evict the namespace's pods that
// are bound to virtual nodes, and reports how many remain. A refusal by a
// PodDisruptionBudget (429) is progress to report, not an error: the next
// pass asks again, once a replacement is ready.
func (r *NamespaceOffloadingReconciler) evictOffloadedPods(ctx context.Context, namespace string) (evictionProgress, error) {
	var progress evictionProgress
	nodes, err := r.virtualNodes(ctx)
	if err != nil {
		return progress, err
	}
	virtual := map[string]bool{}
	for _, n := range nodes {
		virtual[n.Name] = true
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(namespace)); err != nil {
		return progress, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !virtual[p.Spec.NodeName] {
			continue
		}
		progress.remaining++
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
		err := r.SubResource("eviction").Create(ctx, p, ev)
		why, refused := policies.EvictionRefusal(err)
		switch {
		case err == nil, apierrors.IsNotFound(err):
		case refused:
			if progress.blockedPod == "" {
				progress.blockedPod, progress.blockedBy = p.Name, why
			}
		default:
			return progress, fmt.Errorf("evicting offloaded pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	return progress, nil
}

// unmarkSchedulingEnabled removes the scheduling label that
// markSchedulingEnabled set, unless another field manager holds it too (git,
// through Flux, or a person with kubectl): a label someone else wrote is
// theirs to remove, and removing it would be drift.
func (r *NamespaceOffloadingReconciler) unmarkSchedulingEnabled(ctx context.Context, namespace string) error {
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return client.IgnoreNotFound(err)
	}
	if _, ok := ns.Labels[offloadingv1alpha1.SchedulingEnabledLabel]; !ok ||
		labelHeldByOthers(ns.ManagedFields, offloadingv1alpha1.SchedulingEnabledLabel, fluxstatus.FieldOwner) {
		return nil
	}
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, offloadingv1alpha1.SchedulingEnabledLabel)
	if err := r.Patch(ctx, ns, client.RawPatch(types.MergePatchType, []byte(patch)), client.FieldOwner(fluxstatus.FieldOwner)); err != nil {
		return client.IgnoreNotFound(fmt.Errorf("removing label %s from namespace %s: %w", offloadingv1alpha1.SchedulingEnabledLabel, namespace, err))
	}
	return nil
}
