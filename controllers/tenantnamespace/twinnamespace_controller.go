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

// Package tenantnamespace reconciles the provider side of namespace
// offloading. A consumer cannot create namespaces here, so it writes a
// twin-namespace request (a ConfigMap) into its tenant namespace; this
// controller creates the twin, binds the consumer to the offloading
// ClusterRole inside it, and writes the outcome back into the request. The
// contract is in api/sharing/v1alpha1/twin.go.
package tenantnamespace

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/policies"
)

// Finalizer holds a twin-namespace request until the consumer's pods have
// left the twin and the twin is deleted.
const Finalizer = "spillway.liqo.io/twin-namespace"

// fieldOwner manages every object this controller writes.
const fieldOwner = fluxstatus.FieldOwner

const (
	// drainRequeue is how often a deletion checks whether the twin is empty;
	// pod and ShadowPod deletions trigger a check sooner.
	drainRequeue = 10 * time.Second
	// terminatingRequeue waits for a previous twin of the same name to go.
	terminatingRequeue = 5 * time.Second
)

// TwinNamespaceReconciler creates, on this cluster (the provider), the twin
// namespaces its consumers request, and removes them once the request is
// withdrawn and no pod of the consumer runs there. It never modifies or
// deletes a namespace that is not the requesting consumer's twin.
type TwinNamespaceReconciler struct {
	client.Client
	// LocalClusterName names this provider in the messages consumers read.
	LocalClusterName string
	// Reserved are the names no consumer may claim for a twin
	// (--reserved-namespaces), besides the kube- and tenant prefixes.
	Reserved policies.ReservedNamespaces
}

// The manager must hold every verb the offloading ClusterRole grants (RBAC
// refuses to grant or bind more than one holds) rather than escalate/bind,
// which would let it grant anything anywhere.
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=clusterroles,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=rolebindings,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=virtualkubelet.liqo.io,resources=shadowpods,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=configmaps;secrets;services;persistentvolumeclaims,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=pods/log,verbs=get
// +kubebuilder:rbac:groups="",resources=pods/exec,verbs=get;create
// +kubebuilder:rbac:groups="",resources=events,verbs=get;list;watch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers,verbs=get;list;watch
// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings,verbs=get;list;watch;create;update;patch;delete

// Reconcile is a ladder: get, identify the consumer, withdrawal, validation,
// conflict, finalizer, work, outcome.
func (r *TwinNamespaceReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	request := &corev1.ConfigMap{}
	if err := r.Get(ctx, req.NamespacedName, request); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	withdrawn := !request.DeletionTimestamp.IsZero() || request.Labels[sharingv1alpha1.TwinRequestLabel] != "true"
	if withdrawn && !controllerutil.ContainsFinalizer(request, Finalizer) {
		return ctrl.Result{}, nil
	}
	s, err := r.newScope(ctx, request)
	if err != nil {
		return ctrl.Result{}, err
	}
	if s.consumerID == "" {
		// Only tenant namespaces speak for a consumer: anyone else's ConfigMap
		// carrying the label is not a request.
		log.FromContext(ctx).Info("ignoring a twin-namespace request outside a tenant namespace",
			"configMap", req.NamespacedName, "label", sharingv1alpha1.TenantNamespaceLabel)
		if withdrawn {
			return ctrl.Result{}, r.removeFinalizer(ctx, request)
		}
		return ctrl.Result{}, nil
	}
	if withdrawn {
		return r.reconcileDelete(ctx, s)
	}
	return r.reconcile(ctx, s)
}

// reconcile makes the twin exist and records the outcome in the request.
// Transient API errors are returned for a backoff and leave the outcome as it
// was: a consumer should not give up on a request the provider can still serve.
func (r *TwinNamespaceReconciler) reconcile(ctx context.Context, s *scope) (ctrl.Result, error) {
	if problem := validateRequest(s.request); problem != "" {
		return ctrl.Result{}, r.report(ctx, s.request, sharingv1alpha1.TwinPhaseFailed, problem)
	}
	if entry, reserved := r.Reserved.Reserves(s.twin); reserved {
		return ctrl.Result{}, r.report(ctx, s.request, sharingv1alpha1.TwinPhaseConflict, r.reservedMessage(s, entry))
	}
	existing, err := r.getNamespace(ctx, s.twin)
	if err != nil {
		return ctrl.Result{}, err
	}
	switch {
	case existing != nil && !isTwinOf(existing, s.consumerID):
		return ctrl.Result{}, r.report(ctx, s.request, sharingv1alpha1.TwinPhaseConflict, r.conflictMessage(s))
	case existing != nil && !existing.DeletionTimestamp.IsZero():
		msg := fmt.Sprintf("twin namespace %s is still terminating from an earlier request: waiting to create it again", s.twin)
		return ctrl.Result{RequeueAfter: terminatingRequeue}, r.report(ctx, s.request, s.request.Data[sharingv1alpha1.TwinPhaseKey], msg)
	}
	// Persist the finalizer before creating anything it must clean up.
	if err := r.addFinalizer(ctx, s.request); err != nil {
		return ctrl.Result{}, err
	}
	offer, err := r.consumerOffer(ctx, s.consumerID)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureTwin(ctx, s, existing, offer); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureOffloadingClusterRole(ctx); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureRoleBinding(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.ensureBrokerOffloading(ctx, s, offer != nil && offer.Spec.Broker); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.report(ctx, s.request, sharingv1alpha1.TwinPhaseReady, fmt.Sprintf("twin namespace %s ready", s.twin))
}

// scope is everything one reconcile knows about a request.
type scope struct {
	request *corev1.ConfigMap
	// consumerID comes from the tenant namespace's label, never from the request.
	consumerID string
	// consumerName is the tenant name (the consumer's cluster name), for messages.
	consumerName string
	// twin is the requested namespace's name; see twinName.
	twin string
}

// newScope identifies the consumer by the tenant namespace the request lives
// in; consumerID is empty when that namespace is not a tenant namespace.
func (r *TwinNamespaceReconciler) newScope(ctx context.Context, request *corev1.ConfigMap) (*scope, error) {
	s := &scope{request: request, twin: twinName(request)}
	tenant, err := r.getNamespace(ctx, request.Namespace)
	if err != nil || tenant == nil {
		return s, err
	}
	if tenant.Labels[sharingv1alpha1.TenantNamespaceLabel] != "true" {
		return s, nil
	}
	s.consumerID = tenant.Labels[sharingv1alpha1.RemoteClusterIDLabel]
	s.consumerName = consumerName(tenant.Name, s.consumerID)
	return s, nil
}

// getNamespace returns nil, nil when the namespace does not exist.
func (r *TwinNamespaceReconciler) getNamespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns := &corev1.Namespace{}
	err := r.Get(ctx, client.ObjectKey{Name: name}, ns)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading Namespace %s: %w", name, err)
	}
	return ns, nil
}

func (r *TwinNamespaceReconciler) addFinalizer(ctx context.Context, request *corev1.ConfigMap) error {
	if controllerutil.ContainsFinalizer(request, Finalizer) {
		return nil
	}
	base := request.DeepCopy()
	controllerutil.AddFinalizer(request, Finalizer)
	if err := r.Patch(ctx, request, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(fieldOwner)); err != nil {
		return fmt.Errorf("adding finalizer %s to ConfigMap %s/%s: %w", Finalizer, request.Namespace, request.Name, err)
	}
	return nil
}

func (r *TwinNamespaceReconciler) removeFinalizer(ctx context.Context, request *corev1.ConfigMap) error {
	if !controllerutil.ContainsFinalizer(request, Finalizer) {
		return nil
	}
	base := request.DeepCopy()
	controllerutil.RemoveFinalizer(request, Finalizer)
	err := r.Patch(ctx, request, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(fieldOwner))
	if client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("removing finalizer %s from ConfigMap %s/%s: %w", Finalizer, request.Namespace, request.Name, err)
	}
	return nil
}
