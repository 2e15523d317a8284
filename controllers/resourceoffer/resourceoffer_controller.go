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

// Package resourceoffer reconciles the provider side of a peering: a
// ResourceOffer committed in git becomes a tenant namespace for the consumer,
// a least-privilege identity for it, and an offer it reads. Nothing here talks
// to the consumer: External Secrets carries the identity Secret across.
package resourceoffer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"k8s.io/apimachinery/pkg/runtime"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/network/fabric"
)

// Finalizer holds a ResourceOffer until the consumer's workloads are gone and
// its tenant namespace and identity are deleted.
const Finalizer = "spillway.liqo.io/resourceoffer"

// fieldOwner manages every object this controller creates or updates. It is
// the status field owner too; splitting the two is a one-line change here.
const fieldOwner = fluxstatus.FieldOwner

// DefaultNamespace is where identity Secrets live when Namespace is empty.
const DefaultNamespace = "liqo"

const (
	// percentageResync re-reads nodes and pods even when no event says so.
	percentageResync = 30 * time.Second
	// fixedResync repairs drift in a fixed offer's objects: the consumer may
	// write ConfigMaps in its tenant namespace, the offer's included.
	fixedResync = 10 * time.Minute
	// tokenRequeue backs up the Secret watch while the token controller fills the token.
	tokenRequeue = 2 * time.Second
	// terminatingRequeue waits for another consumer's tenant namespace to go.
	terminatingRequeue = 5 * time.Second
	// consumerPodsRequeue is how often a deletion checks whether the consumer's pods are gone.
	consumerPodsRequeue = 10 * time.Second
)

// ResourceOfferReconciler publishes this cluster's offers (it is the
// provider) to the consumers they name. It writes the ResourceOffer's status
// and finalizer only, never a field that lives in git.
type ResourceOfferReconciler struct {
	client.Client
	// Scheme names the kinds of objects in error messages.
	Scheme *runtime.Scheme
	// LocalClusterID is this provider's identity, written into every offer and identity.
	LocalClusterID string
	// LocalClusterName names this provider in the offer and in the identity's kubeconfig.
	LocalClusterName string
	// APIServerURL is the URL consumers use to reach this cluster's API server.
	APIServerURL string
	// Namespace holds the identity Secrets (the controller's own); DefaultNamespace when empty.
	Namespace string
	// Fabric runs this side of each consumer's tunnel; nil when the manager
	// runs without --gateway-address.
	Fabric *fabric.Fabric
	// Clock reads the time a withdrawal's grace period is measured against;
	// time.Now when nil.
	Clock func() time.Time

	// usage is what the pods hold per node and origin, fed by the pod
	// informer (podUsageSource) from SetupWithManager on.
	usage podUsage
}

// The manager needs every verb it grants in the consumer Role (RBAC forbids
// granting what one does not hold) rather than escalate/bind, which would let
// it grant anything anywhere.
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers/finalizers,verbs=update
// +kubebuilder:rbac:groups="",resources=namespaces;serviceaccounts,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete
// +kubebuilder:rbac:groups="",resources=configmaps;secrets;services;persistentvolumeclaims;events,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=virtualkubelet.liqo.io,resources=shadowpods,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;update;patch;delete

// Reconcile follows Flux's ladder (fluxstatus.Ladder): get, patcher,
// deferred status, deletion, finalizer, suspend, work.
func (r *ResourceOfferReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ladder := fluxstatus.Ladder[*sharingv1alpha1.ResourceOffer]{
		Client:             r.Client,
		Finalizer:          Finalizer,
		OwnedConditions:    []string{ResourcesRoundedToZeroCondition, ExposedLabelConflictCondition},
		New:                func() *sharingv1alpha1.ResourceOffer { return &sharingv1alpha1.ResourceOffer{} },
		Suspended:          func(o *sharingv1alpha1.ResourceOffer) bool { return o.Spec.Suspend },
		ObservedGeneration: func(o *sharingv1alpha1.ResourceOffer) int64 { return o.Status.ObservedGeneration },
		Delete:             r.reconcileDelete,
		Work:               r.reconcile,
	}
	return ladder.Reconcile(ctx, req)
}

// reconcile syncs the tenant and records the outcome. Errors are transient
// (API errors): Ready=False and a backoff. What only git can fix is Stalled.
func (r *ResourceOfferReconciler) reconcile(ctx context.Context, offer *sharingv1alpha1.ResourceOffer) (ctrl.Result, error) {
	obs, err := r.sync(ctx, r.newScope(offer))
	if err != nil {
		fluxstatus.MarkNotReady(offer, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	}
	applyStatus(offer, obs)
	applyNetworkStatus(offer, obs.network)
	switch {
	case obs.conflict != nil && obs.conflict.terminating:
		return ctrl.Result{RequeueAfter: terminatingRequeue}, nil
	case obs.conflict != nil:
		return ctrl.Result{}, nil
	case obs.tokenPending:
		return ctrl.Result{RequeueAfter: tokenRequeue}, nil
	case r.Fabric != nil:
		return ctrl.Result{RequeueAfter: networkResync}, nil
	case offer.HasFixedLimits():
		return ctrl.Result{RequeueAfter: fixedResync}, nil
	}
	return ctrl.Result{RequeueAfter: percentageResync}, nil
}

// scope is everything one reconcile knows about the consumer's tenant.
type scope struct {
	offer           *sharingv1alpha1.ResourceOffer
	clusterID       string
	tenantNamespace string
	identitySecret  client.ObjectKey
}

func (r *ResourceOfferReconciler) newScope(offer *sharingv1alpha1.ResourceOffer) *scope {
	return &scope{
		offer:           offer,
		clusterID:       offer.Spec.ClusterID,
		tenantNamespace: sharingv1alpha1.TenantNamespaceName(offer.Spec.ClusterName, offer.Spec.ClusterID),
		identitySecret: client.ObjectKey{Namespace: r.namespace(),
			Name: sharingv1alpha1.IdentitySecretName(offer.Spec.ClusterName, offer.Spec.ClusterID)},
	}
}

// sync brings the tenant in line with the offer, in the order the consumer
// needs it: namespace, ServiceAccount and token, permissions, offer, identity.
// Only API errors are returned; anything else is recorded in the observation.
func (r *ResourceOfferReconciler) sync(ctx context.Context, s *scope) (observation, error) {
	obs := observation{offerRef: client.ObjectKeyFromObject(s.offer).String(), clusterID: s.clusterID,
		tenantNamespace: s.tenantNamespace, identitySecret: s.identitySecret.Name,
		percent: s.offer.EffectiveSharingPercentage()}
	var err error
	if obs.conflict, err = r.ensureTenantNamespace(ctx, s); err != nil || obs.conflict != nil {
		return obs, err
	}
	if err := r.ensureServiceAccount(ctx, s); err != nil {
		return obs, err
	}
	token, err := r.ensureToken(ctx, s)
	if err != nil {
		return obs, err
	}
	if err := r.ensureRBAC(ctx, s); err != nil {
		return obs, err
	}
	obs.broker = s.offer.Spec.Broker
	computed, err := r.computeOffer(ctx, s.offer)
	if err != nil {
		return obs, err
	}
	obs.offered, obs.zeroed, obs.resold, obs.labelConflicts = computed.offered, computed.zeroed, computed.resold, computed.conflicts
	if err := r.ensureOfferConfigMap(ctx, s, computed); err != nil {
		return obs, err
	}
	if r.Fabric != nil {
		if obs.network, err = r.syncNetwork(ctx, s); err != nil {
			return obs, err
		}
	}
	if token == nil {
		obs.tokenPending = true
		return obs, nil
	}
	obs.conflict, err = r.ensureIdentitySecret(ctx, s, token)
	return obs, err
}

func (r *ResourceOfferReconciler) namespace() string {
	if r.Namespace == "" {
		return DefaultNamespace
	}
	return r.Namespace
}

// providerName names this cluster in kubeconfigs and offers.
func (r *ResourceOfferReconciler) providerName() string {
	if r.LocalClusterName == "" {
		return r.LocalClusterID
	}
	return r.LocalClusterName
}

// createOrUpdate writes obj under the controller's field owner.
func (r *ResourceOfferReconciler) createOrUpdate(ctx context.Context, obj client.Object, mutate controllerutil.MutateFn) error {
	_, err := controllerutil.CreateOrUpdate(ctx, client.WithFieldOwner(r.Client, fieldOwner), obj, mutate)
	var conflict *tenantConflict
	if err != nil && !errors.As(err, &conflict) {
		return fmt.Errorf("writing %s: %w", r.describe(obj), err)
	}
	return err
}

// describe names an object as a person would look it up: "Role ns/name".
func (r *ResourceOfferReconciler) describe(obj client.Object) string {
	kind := fmt.Sprintf("%T", obj)
	if r.Scheme != nil {
		if gvk, err := apiutil.GVKForObject(obj, r.Scheme); err == nil {
			kind = gvk.Kind
		}
	}
	if obj.GetNamespace() == "" {
		return kind + " " + obj.GetName()
	}
	return kind + " " + obj.GetNamespace() + "/" + obj.GetName()
}
