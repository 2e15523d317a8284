// Package namespaceoffloading extends a namespace into the providers its
// NamespaceOffloading selects: it asks each selected provider for a twin
// namespace, reports per cluster how that went, and marks the namespace so the
// pod webhook places its pods. It writes only status (and one label it owns).
package namespaceoffloading

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"

	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/runtime/patch"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

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
}

// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings/status;namespaceoffloadings/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete

// Reconcile follows the Flux ladder.
func (r *NamespaceOffloadingReconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	no := &offloadingv1alpha1.NamespaceOffloading{}
	if err := r.Get(ctx, req.NamespacedName, no); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	patcher := patch.NewSerialPatcher(no, r.Client)
	defer func() {
		if !no.DeletionTimestamp.IsZero() && !controllerutil.ContainsFinalizer(no, Finalizer) {
			retErr = errors.Join(retErr, client.IgnoreNotFound(patcher.Patch(ctx, no)))
			return
		}
		retErr = errors.Join(retErr, fluxstatus.Finalize(ctx, no, patcher))
	}()
	if !no.DeletionTimestamp.IsZero() {
		return r.reconcileDelete(ctx, no)
	}
	if controllerutil.AddFinalizer(no, Finalizer) {
		return ctrl.Result{Requeue: true}, nil
	}
	if no.Spec.Suspend {
		fluxstatus.MarkSuspended(no)
		return ctrl.Result{}, nil
	}
	fluxstatus.Begin(no, no.Status.ObservedGeneration)
	return r.reconcile(ctx, no)
}

func (r *NamespaceOffloadingReconciler) reconcile(ctx context.Context, no *offloadingv1alpha1.NamespaceOffloading) (ctrl.Result, error) {
	if no.Name != offloadingv1alpha1.RequiredName {
		fluxstatus.MarkNotReady(no, true, "InvalidName", "a NamespaceOffloading must be named %q; this one (%s) is ignored: rename it in git", offloadingv1alpha1.RequiredName, no.Name)
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
	state := computeState(remoteName, outcomes, metav1.Now())
	keepTransitionTimes(no.Status.RemoteNamespacesConditions, state.conditions)
	no.Status.RemoteNamespaceName = remoteName
	no.Status.RemoteNamespacesConditions = state.conditions
	no.Status.OffloadingPhase = state.phase
	if state.ready {
		conditions.MarkTrue(no, meta.ReadyCondition, state.reason, "%s", state.message)
	} else {
		fluxstatus.MarkNotReady(no, false, state.reason, "%s", state.message)
	}
	return ctrl.Result{RequeueAfter: requeueAfter(state)}, nil
}

// Resyncs: a twin request is answered asynchronously by the provider.
const (
	fastResync = 3 * time.Second
	slowResync = 60 * time.Second
)

func requeueAfter(s offloadingState) time.Duration {
	if s.ready {
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
