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

// Package namespaceoffloading extends a namespace into the providers its
// NamespaceOffloading selects: it asks each selected provider for a twin
// namespace, reports per cluster how that went, and marks the namespace so the
// pod webhook places its pods. Of what git holds it writes only status and one
// label it owns; on deletion it deletes the namespace's offloaded pods.
package namespaceoffloading

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// Finalizer holds a NamespaceOffloading until its twins are released.
const Finalizer = "spillway.liqo.io/namespaceoffloading"

// NamespaceOffloadingReconciler is the consumer side of namespace offloading.
type NamespaceOffloadingReconciler struct {
	client.Client
	LocalClusterID, LocalClusterName string
	Peers                            *remote.Registry
	// ManagerNamespace is the manager's own namespace (--namespace), never
	// offloaded; empty: none is refused.
	ManagerNamespace string
}

// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings/status;namespaceoffloadings/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.liqo.io,resources=foreignclusters,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create

// Reconcile follows Flux's ladder (fluxstatus.Ladder): get, patcher,
// deferred status, deletion, finalizer, suspend, work.
func (r *NamespaceOffloadingReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ladder := fluxstatus.Ladder[*offloadingv1alpha1.NamespaceOffloading]{
		Client:    r.Client,
		Finalizer: Finalizer,
		New:       func() *offloadingv1alpha1.NamespaceOffloading { return &offloadingv1alpha1.NamespaceOffloading{} },
		Suspended: func(no *offloadingv1alpha1.NamespaceOffloading) bool { return no.Spec.Suspend },
		ObservedGeneration: func(no *offloadingv1alpha1.NamespaceOffloading) int64 {
			return no.Status.ObservedGeneration
		},
		Delete: r.reconcileDelete,
		Work:   r.reconcile,
	}
	return ladder.Reconcile(ctx, req)
}

func (r *NamespaceOffloadingReconciler) reconcile(ctx context.Context, no *offloadingv1alpha1.NamespaceOffloading) (ctrl.Result, error) {
	if no.Name != offloadingv1alpha1.RequiredName {
		fluxstatus.MarkNotReady(no, true, "InvalidName", "a NamespaceOffloading must be named %q; this one (%s) is ignored: rename it in git", offloadingv1alpha1.RequiredName, no.Name)
		return ctrl.Result{}, nil
	}
	if r.ManagerNamespace != "" && no.Namespace == r.ManagerNamespace {
		// Offloaded, its Secrets (every peering's identity and credentials)
		// would be copied to the providers. Liqo's broker seed offloads it to
		// reflect a service; a Spillway broker needs no such step.
		fluxstatus.MarkNotReady(no, true, offloadingv1alpha1.ManagerNamespaceReason,
			"namespace %s is Spillway's own and holds every peering's credentials: it is never offloaded; remove this NamespaceOffloading from git "+
				"(a broker needs none: set spec.broker on its ResourceOffer to the consumer)", no.Namespace)
		return ctrl.Result{}, nil
	}
	nodes, err := r.virtualNodes(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	selected, err := policies.SelectedClusters(no.Spec.ClusterSelector, nodes)
	if err != nil {
		fluxstatus.MarkNotReady(no, true, offloadingv1alpha1.InvalidClusterSelectorReason, "%v: fix it in git", err)
		return ctrl.Result{}, nil
	}
	if err := r.markSchedulingEnabled(ctx, no.Namespace); err != nil {
		return ctrl.Result{}, err
	}
	remoteName := policies.RemoteNamespaceName(no.Spec.NamespaceMappingStrategy, no.Namespace, r.LocalClusterName, r.LocalClusterID)
	outcomes := r.syncTwins(ctx, no.Namespace, remoteName, nodes, selected)
	fcs := &discoveryv1alpha1.ForeignClusterList{}
	if err := r.List(ctx, fcs); err != nil {
		return ctrl.Result{}, err
	}
	state := computeState(remoteName, outcomes, peeringsWithoutNode(fcs.Items, nodes), metav1.Now())
	applyState(no, remoteName, state)
	return ctrl.Result{RequeueAfter: requeueAfter(state)}, nil
}

// Resyncs: a twin request is answered asynchronously by the provider. A
// stalled offloading waits for the watches: new virtual nodes, changed
// labels, new ForeignClusters.
const (
	fastResync = 3 * time.Second
	slowResync = 60 * time.Second
)

func requeueAfter(s offloadingState) time.Duration {
	if s.ready || s.stalled {
		return slowResync
	}
	return fastResync
}

// virtualNodes lists the nodes that stand for peers.
func (r *NamespaceOffloadingReconciler) virtualNodes(ctx context.Context) ([]corev1.Node, error) {
	list := &corev1.NodeList{}
	if err := r.List(ctx, list, client.MatchingLabels{virtualkubeletv1alpha1.TypeLabel: virtualkubeletv1alpha1.TypeVirtualNode}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// markSchedulingEnabled labels the namespace so the pod webhook acts in it. The
// label is applied with our own field manager: when git declares it too, Flux
// and we co-own it and nothing drifts.
func (r *NamespaceOffloadingReconciler) markSchedulingEnabled(ctx context.Context, namespace string) error {
	ns := &corev1.Namespace{}
	if err := r.Get(ctx, client.ObjectKey{Name: namespace}, ns); err != nil {
		return err
	}
	if ns.Labels[offloadingv1alpha1.SchedulingEnabledLabel] == offloadingv1alpha1.SchedulingEnabledValue {
		return nil
	}
	base := ns.DeepCopy()
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[offloadingv1alpha1.SchedulingEnabledLabel] = offloadingv1alpha1.SchedulingEnabledValue
	if err := r.Patch(ctx, ns, client.MergeFrom(base), client.FieldOwner(fluxstatus.FieldOwner)); err != nil {
		return fmt.Errorf("labelling namespace %s: %w", namespace, err)
	}
	return nil
}
