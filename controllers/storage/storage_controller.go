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

// Package storage is the provisioner of the virtual storage class liqo. A
// claim of that class waits for its first pod (WaitForFirstConsumer); once
// the scheduler has picked the pod's node, this controller binds the claim
// where the pod runs: a twin claim of a real class in the storage namespace
// for a local node, a twin claim in the namespace's twin on the provider for
// a virtual node. The claim's virtual PersistentVolume carries the node
// affinity of the data, so every later pod of the claim is scheduled where
// the data is (data gravity). Deleting the claim deletes the twin.
package storage

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// VirtualStorageReconciler provisions claims of the virtual storage class.
type VirtualStorageReconciler struct {
	client.Client
	// Peers holds the providers' clients, by cluster ID and virtual node.
	Peers *remote.Registry
	// LocalClusterID marks the twin claims made on providers as this cluster's.
	LocalClusterID string
	// StorageNamespace holds the twins of claims bound on local nodes.
	StorageNamespace string
	// LocalStorageClass is the real class of those twins; empty: the
	// cluster's default class.
	LocalStorageClass string
	// Recorder reports, on the claim, why it is not bound yet.
	Recorder events.EventRecorder
}

// +kubebuilder:rbac:groups="",resources=persistentvolumeclaims,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=persistentvolumes,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups="",resources=namespaces,verbs=get;list;watch;create
// +kubebuilder:rbac:groups=storage.k8s.io,resources=storageclasses,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings,verbs=get;list;watch

// Reconcile binds a claim of the virtual class whose first pod has a node,
// and keeps a bound claim and its twin together (syncBound: the remote
// twin's state, resizes). It is re-entrant: every step looks for what an
// earlier reconcile made.
func (r *VirtualStorageReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	if err := r.Get(ctx, req.NamespacedName, pvc); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !pvc.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	if !isVirtualClaim(pvc) {
		return r.reconcileOtherClass(ctx, pvc)
	}
	node := pvc.Annotations[policies.SelectedNodeAnnotation]
	if node == "" && pvc.Spec.VolumeName == "" {
		return ctrl.Result{}, nil // waiting for its first consumer
	}
	if pvc.Spec.VolumeName != "" {
		return r.syncBound(ctx, pvc)
	}
	result, err := r.bind(ctx, pvc, node)
	if err != nil {
		r.Recorder.Eventf(pvc, nil, corev1.EventTypeWarning, "ProvisioningFailed", "Provision", "%v", err)
	}
	return result, err
}

// reconcileOtherClass follows a claim of another class: one reflected to a
// provider (its volume is this provisioner's) is kept with its twin as a
// liqo claim is; a pending one may be externally managed storage.
func (r *VirtualStorageReconciler) reconcileOtherClass(ctx context.Context, pvc *corev1.PersistentVolumeClaim) (ctrl.Result, error) {
	if pvc.Spec.VolumeName != "" {
		return r.syncBound(ctx, pvc)
	}
	class, ok := policies.ExternalClaimClass(pvc)
	if !ok {
		return ctrl.Result{}, nil
	}
	result, err := r.reconcileExternal(ctx, pvc, class)
	if err != nil {
		r.Recorder.Eventf(pvc, nil, corev1.EventTypeWarning, "ReflectionFailed", "Reflect", "%v", err)
	}
	return result, err
}

// bind makes the twin claim where the node is, then the virtual volume.
func (r *VirtualStorageReconciler) bind(ctx context.Context, pvc *corev1.PersistentVolumeClaim, nodeName string) (ctrl.Result, error) {
	node := &corev1.Node{}
	if err := r.Get(ctx, client.ObjectKey{Name: nodeName}, node); err != nil {
		if apierrors.IsNotFound(err) {
			node = nil
		} else {
			return ctrl.Result{}, err
		}
	}
	b, err := policies.StorageBindingFor(node)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("claim %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	reclaim, err := r.reclaimPolicy(ctx)
	if err != nil {
		return ctrl.Result{}, err
	}
	if b.Remote {
		return r.bindRemote(ctx, pvc, b, reclaim)
	}
	return r.bindLocal(ctx, pvc, b, reclaim)
}

// reclaimPolicy is the virtual class's: Delete unless the class says Retain.
func (r *VirtualStorageReconciler) reclaimPolicy(ctx context.Context) (corev1.PersistentVolumeReclaimPolicy, error) {
	class := &storagev1.StorageClass{}
	if err := r.Get(ctx, client.ObjectKey{Name: sharingv1alpha1.VirtualStorageClassName}, class); err != nil {
		return "", fmt.Errorf("reading StorageClass %s: %w", sharingv1alpha1.VirtualStorageClassName, err)
	}
	if class.ReclaimPolicy == nil {
		return corev1.PersistentVolumeReclaimDelete, nil
	}
	return *class.ReclaimPolicy, nil
}

func isVirtualClaim(pvc *corev1.PersistentVolumeClaim) bool {
	return pvc.Spec.StorageClassName != nil && *pvc.Spec.StorageClassName == sharingv1alpha1.VirtualStorageClassName
}
