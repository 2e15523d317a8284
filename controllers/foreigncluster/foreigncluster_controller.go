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

// Package foreigncluster reconciles the consumer side of a peering: a
// ForeignCluster committed in git, whose credentials an ExternalSecret
// delivers, becomes a connection to the provider and a virtual node sized by
// the provider's offer. In git it writes nothing but status and its
// finalizer; the virtual node, and the evictions of unpeering, are its own.
package foreigncluster

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/network/fabric"
	"github.com/spillway-dev/spillway/peering"
	"github.com/spillway-dev/spillway/peering/virtualnode"
)

// Finalizer holds a ForeignCluster until its virtual node is drained, the
// provider has removed the twin namespaces this cluster asked for, and the
// node is gone.
const Finalizer = "spillway.liqo.io/foreigncluster"

// PeeringRuntime runs the live side of each peering (peering.Runtime); the
// reconciler only asks it to connect, ensure or stop, and for the provider's
// client while unpeering, so tests can fake it.
type PeeringRuntime interface {
	// Connect returns the provider's client for these credentials.
	Connect(name string, cfg *rest.Config, fingerprint string) (kubernetes.Interface, error)
	// Ensure starts or updates the peering's virtual node and workers.
	Ensure(ctx context.Context, p peering.Peer) (virtualnode.Health, error)
	// Withdraw stops new offloading towards a peer.
	Withdraw(clusterID string)
	// Stop ends the peering's workers; nothing is deleted.
	Stop(name string)
	// Provider returns the provider's client and the tenant namespace of a
	// peering ensured by a session that still runs.
	Provider(name string) (provider kubernetes.Interface, tenantNamespace string, ok bool)
}

// ForeignClusterReconciler peers this cluster (the consumer) with providers.
type ForeignClusterReconciler struct {
	client.Client
	// LocalClusterID is this cluster's identity; a provider's offer must name it.
	LocalClusterID string
	// Runtime runs every peering's goroutines (virtual node, pods, reflection).
	Runtime PeeringRuntime
	// Fabric runs a gateway per peering (the network fabric); nil when the
	// manager runs without --gateway-address, leaving NetworkStatus None.
	Fabric *fabric.Fabric
}

// +kubebuilder:rbac:groups=discovery.liqo.io,resources=foreignclusters,verbs=get;list;watch;update;patch
// +kubebuilder:rbac:groups=discovery.liqo.io,resources=foreignclusters/status;foreignclusters/finalizers,verbs=get;update;patch
// +kubebuilder:rbac:groups=sharing.liqo.io,resources=resourceoffers,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=pods/eviction,verbs=create
// +kubebuilder:rbac:groups=coordination.k8s.io,resources=leases,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
// +kubebuilder:rbac:groups="",resources=configmaps;services,verbs=get;list;watch
// +kubebuilder:rbac:groups=discovery.k8s.io,resources=endpointslices,verbs=get;list;watch
// +kubebuilder:rbac:groups=networking.k8s.io,resources=ingresses,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=serviceaccounts/token,verbs=create

// Reconcile follows Flux's ladder (fluxstatus.Ladder): get, patcher,
// deferred status, deletion, finalizer, suspend, work.
func (r *ForeignClusterReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	ladder := fluxstatus.Ladder[*discoveryv1alpha1.ForeignCluster]{
		Client:             r.Client,
		Finalizer:          Finalizer,
		New:                func() *discoveryv1alpha1.ForeignCluster { return &discoveryv1alpha1.ForeignCluster{} },
		Suspended:          func(fc *discoveryv1alpha1.ForeignCluster) bool { return fc.Spec.Suspend },
		ObservedGeneration: func(fc *discoveryv1alpha1.ForeignCluster) int64 { return fc.Status.ObservedGeneration },
		Delete:             r.reconcileDelete,
		Work:               r.reconcile,
	}
	return ladder.Reconcile(ctx, req)
}

func (r *ForeignClusterReconciler) reconcile(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (ctrl.Result, error) {
	nodeName, err := r.existingNode(ctx, fc)
	if err != nil {
		return ctrl.Result{}, err
	}
	obs := observation{
		outgoingEnabled: fc.Spec.OutgoingPeeringEnabled != discoveryv1alpha1.PeeringEnabledNo,
		localClusterID:  r.LocalClusterID,
		specClusterID:   fc.Spec.ClusterIdentity.ClusterID,
		nodeName:        nodeName,
	}
	incoming, err := r.incomingEstablished(ctx, fc)
	if err != nil {
		return ctrl.Result{}, err
	}
	obs.incoming = incoming
	if !obs.outgoingEnabled {
		if obs.unpeering, err = r.unpeer(ctx, fc); err != nil {
			return ctrl.Result{}, err
		}
		if obs.nodeName, err = r.existingNode(ctx, fc); err != nil {
			return ctrl.Result{}, err
		}
	} else if err := r.observePeer(ctx, fc, &obs); err != nil {
		return ctrl.Result{}, err
	}
	state := computeState(obs)
	state.apply(fc, metav1.Now())
	fc.Status.VirtualNodeName = obs.nodeName
	if state.ready {
		conditions.MarkTrue(fc, discoveryv1alpha1.ReadyCondition, state.reason, "%s", state.message)
	} else {
		fluxstatus.MarkNotReady(fc, state.stalled, state.reason, "%s", state.message)
	}
	if !obs.outgoingEnabled && unpeeringProgress(obs.nodeName, obs.unpeering) != "" {
		return ctrl.Result{RequeueAfter: unpeeringRequeue(fc.GetRequeueAfter(), obs.unpeering)}, nil
	}
	return ctrl.Result{RequeueAfter: fc.GetRequeueAfter()}, nil
}

// observePeer reads the credentials, the provider's offer, and keeps the
// virtual node in line with it. Only local API errors are returned; anything
// about the peer is recorded in obs.
func (r *ForeignClusterReconciler) observePeer(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster, obs *observation) error {
	if fc.Spec.CredentialsSecretRef == nil {
		obs.secretMissing, obs.secretRef = true, "(spec.credentialsSecretRef is not set)"
		return nil
	}
	key := types.NamespacedName{Namespace: fc.CredentialsNamespace(), Name: fc.Spec.CredentialsSecretRef.Name}
	obs.secretRef = key.String()
	secret := &corev1.Secret{}
	if err := r.Get(ctx, key, secret); err != nil {
		obs.secretMissing = apierrors.IsNotFound(err)
		return client.IgnoreNotFound(err)
	}
	creds, err := credentialsFromSecret(secret)
	if err != nil {
		obs.credsErr = err
		return nil
	}
	obs.server = creds.config.Host
	provider, err := r.Runtime.Connect(fc.Name, creds.config, creds.fingerprint)
	if err != nil {
		obs.credsErr = fmt.Errorf("secret %s: %w", key, err)
		return nil
	}
	if obs.offer, obs.remoteErr = readRemoteOffer(ctx, provider, creds.namespace); obs.remoteErr != nil {
		return nil
	}
	if obs.offer.providerClusterID != obs.specClusterID || obs.offer.consumerClusterID != r.LocalClusterID || !obs.offer.ready {
		return nil
	}
	spec := nodeSpec(fc, obs.offer)
	health, err := r.Runtime.Ensure(ctx, sessionPeer(fc, creds.namespace, spec))
	if err == nil {
		obs.nodeHealth = &health
	}
	obs.nodeName = spec.Name
	if err == nil && r.networkWanted(fc) {
		obs.network, err = r.syncNetwork(ctx, fc, provider, creds.namespace)
	} else if err == nil {
		err = r.releaseNetwork(ctx, fc)
	}
	return err
}

func clusterName(fc *discoveryv1alpha1.ForeignCluster) string {
	if fc.Spec.ClusterIdentity.ClusterName != "" {
		return fc.Spec.ClusterIdentity.ClusterName
	}
	return fc.Name
}

// sessionPeer is what the peering runtime runs a session for: the
// ForeignCluster's names, the tenant namespace on the provider, the node.
func sessionPeer(fc *discoveryv1alpha1.ForeignCluster, tenant string, node virtualnode.Spec) peering.Peer {
	return peering.Peer{Name: fc.Name, ClusterID: fc.Spec.ClusterIdentity.ClusterID, ClusterName: clusterName(fc),
		TenantNamespace: tenant, Node: node}
}

func nodeSpec(fc *discoveryv1alpha1.ForeignCluster, offer *remoteOffer) virtualnode.Spec {
	return virtualnode.Spec{Name: virtualkubeletv1alpha1.VirtualNodeName(clusterName(fc)), RemoteClusterID: fc.Spec.ClusterIdentity.ClusterID,
		Labels: offer.labels, Capacity: offer.resources, KubeletVersion: offer.serverVersion}
}

// existingNode returns the name of this peering's virtual node, "" if there
// is none. A failed read is an error, never "no node": unpeering would take
// it as leave to stop the peering's session.
func (r *ForeignClusterReconciler) existingNode(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (string, error) {
	nodes := &corev1.NodeList{}
	if err := r.List(ctx, nodes, client.MatchingLabels{virtualkubeletv1alpha1.RemoteClusterIDLabel: fc.Spec.ClusterIdentity.ClusterID,
		virtualkubeletv1alpha1.TypeLabel: virtualkubeletv1alpha1.TypeVirtualNode}); err != nil {
		return "", fmt.Errorf("listing the virtual node of ForeignCluster %s: %w", fc.Name, err)
	}
	if len(nodes.Items) == 0 {
		return "", nil
	}
	return nodes.Items[0].Name, nil
}
