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
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/pod"
)

// externalRecheck is how often a pending claim that Spillway refused to
// reflect is decided again: the decision reads the peers' offers, which are
// not watched, so a class a provider adds to its offer in git is picked up
// within this time.
const externalRecheck = 30 * time.Second

// reconcileExternal handles a pending claim of a class other than liqo
// (externally managed storage). A class this cluster has binds here, as
// without Spillway, and is never copied; otherwise the claim is reflected to
// the one peer its namespace is offloaded to that offers the class, or left
// Pending with a Warning Event that says why and what to change.
func (r *VirtualStorageReconciler) reconcileExternal(ctx context.Context, pvc *corev1.PersistentVolumeClaim, class string) (ctrl.Result, error) {
	err := r.Get(ctx, client.ObjectKey{Name: class}, &storagev1.StorageClass{})
	if err == nil {
		return ctrl.Result{}, nil
	}
	if !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("reading StorageClass %s of claim %s/%s: %w", class, pvc.Namespace, pvc.Name, err)
	}
	peers, twins, err := r.externalPeers(ctx, pvc.Namespace)
	if err != nil {
		return ctrl.Result{}, err
	}
	d := policies.ExternalClaimDecisionFor(pvc, class, peers)
	switch d.Action {
	case policies.ExternalClaimReflect:
		return r.bindExternal(ctx, pvc, d.ClusterID, twins[d.ClusterID])
	case policies.ExternalClaimRefuse:
		r.Recorder.Eventf(pvc, nil, corev1.EventTypeWarning, d.Reason, "Reflect", "%s", d.Message)
		return ctrl.Result{RequeueAfter: externalRecheck}, nil
	case policies.ExternalClaimWait:
		ctrl.LoggerFrom(ctx).Info("external claim not decided yet", "reason", d.Reason, "message", d.Message)
		return ctrl.Result{RequeueAfter: policies.RemotePollInterval(time.Since(pvc.CreationTimestamp.Time))}, nil
	}
	// Not Spillway's claim (its namespace is offloaded nowhere and no peer
	// offers the class): not polled; offloading the namespace requeues it.
	return ctrl.Result{}, nil
}

// externalPeers reads, for every running peering, whether the namespace is
// offloaded there (and its twin's name) and the external classes its offer
// lists. An offer that cannot be read is recorded, not fatal: it matters
// only for a peer the namespace is offloaded to (the decision waits then).
func (r *VirtualStorageReconciler) externalPeers(ctx context.Context, ns string) ([]policies.ExternalStoragePeer, map[string]string, error) {
	var out []policies.ExternalStoragePeer
	twins := map[string]string{}
	for _, peer := range r.Peers.List() {
		p := policies.ExternalStoragePeer{ClusterID: peer.ClusterID, ClusterName: peer.ClusterName}
		twin, err := pod.OffloadingMapper(r.Client, peer.ClusterName, peer.ClusterID)(ctx, ns)
		var notReady *pod.TwinNotReadyError
		switch {
		case err == nil:
			p.Offloaded, twins[peer.ClusterID] = true, twin
		case errors.As(err, &notReady):
			p.TwinPending = true
		case !errors.Is(err, pod.ErrNotOffloaded):
			return nil, nil, err
		}
		cm, err := peer.Client.CoreV1().ConfigMaps(peer.TenantNamespace).Get(ctx, sharingv1alpha1.OfferConfigMapName, metav1.GetOptions{})
		if err == nil {
			p.Classes, err = policies.ParseExternalStorageClasses(cm.Data[sharingv1alpha1.OfferExternalStorageClassesKey])
		}
		if err != nil {
			p.OfferError = err.Error()
		}
		out = append(out, p)
	}
	return out, twins, nil
}

// bindExternal reflects the claim to the peer: a twin of the claim's own
// class in the namespace's twin there, and a virtual volume held to the
// peer's virtual node, bound to the claim at once (nothing here would ever
// bind it: the class does not exist on this cluster). The volume's reclaim
// policy is Delete, as a claim's own class would have by default: the class
// to read one from is the provider's, which the consumer cannot read.
func (r *VirtualStorageReconciler) bindExternal(ctx context.Context, pvc *corev1.PersistentVolumeClaim, clusterID, twinNS string) (ctrl.Result, error) {
	peer, ok := r.Peers.Get(clusterID)
	if !ok {
		return ctrl.Result{}, fmt.Errorf("claim %s/%s: the peering with cluster %s stopped; retrying", pvc.Namespace, pvc.Name, clusterID)
	}
	b := policies.StorageBinding{Node: peer.NodeName, Remote: true, ClusterID: peer.ClusterID}
	result, err := r.ensureRemoteTwin(ctx, pvc, peer, twinNS, pvc.Spec.StorageClassName, b, corev1.PersistentVolumeReclaimDelete)
	if err == nil {
		// Says on the claim where its data lives, which nothing else here shows.
		r.Recorder.Eventf(pvc, nil, corev1.EventTypeNormal, "Reflected", "Reflect",
			"class %s is offered by %s: the claim lives there as %s/%s, and its pods run on %s", *pvc.Spec.StorageClassName, peer.ClusterName, twinNS, pvc.Name, peer.NodeName)
	}
	return result, err
}
