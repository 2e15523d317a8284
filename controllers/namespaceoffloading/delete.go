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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// reconcileDelete unoffloads: offloaded pods go first (their controllers
// recreate them locally), then the twin requests are withdrawn and the
// providers remove the twins once empty. A peer that is not connected is left
// alone: a broken peer never loses its workloads.
func (r *NamespaceOffloadingReconciler) reconcileDelete(ctx context.Context, no *offloadingv1alpha1.NamespaceOffloading) (ctrl.Result, error) {
	remaining, err := r.deleteOffloadedPods(ctx, no.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}
	if remaining > 0 {
		fluxstatus.MarkNotReady(no, false, string(offloadingv1alpha1.TerminatingOffloadingPhase), "unoffloading: %d offloaded pod(s) still terminating", remaining)
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
	controllerutil.RemoveFinalizer(no, Finalizer)
	return ctrl.Result{}, nil
}

// deleteOffloadedPods deletes the namespace's pods bound to virtual nodes and
// returns how many remain.
func (r *NamespaceOffloadingReconciler) deleteOffloadedPods(ctx context.Context, namespace string) (int, error) {
	nodes, err := r.virtualNodes(ctx)
	if err != nil {
		return 0, err
	}
	virtual := map[string]bool{}
	for _, n := range nodes {
		virtual[n.Name] = true
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(namespace)); err != nil {
		return 0, err
	}
	remaining := 0
	for i := range pods.Items {
		p := &pods.Items[i]
		if !virtual[p.Spec.NodeName] {
			continue
		}
		remaining++
		if p.DeletionTimestamp.IsZero() {
			if err := r.Delete(ctx, p); client.IgnoreNotFound(err) != nil {
				return remaining, fmt.Errorf("deleting offloaded pod %s/%s: %w", p.Namespace, p.Name, err)
			}
		}
	}
	return remaining, nil
}
