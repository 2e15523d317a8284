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
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/pod"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// bindRemote binds a claim whose pod runs on a virtual node: a twin claim of
// the same name in the namespace's twin on the provider, of the class the
// provider's offer names (its default class when none), and a virtual volume
// held to the virtual node. The provider's class decides when its claim
// binds: with WaitForFirstConsumer, when the offloaded pod is scheduled
// there, which needs the virtual claim bound first; so the virtual volume
// does not wait for the twin, and syncRemoteVolume shows the twin's state.
func (r *VirtualStorageReconciler) bindRemote(ctx context.Context, pvc *corev1.PersistentVolumeClaim, b policies.StorageBinding,
	reclaim corev1.PersistentVolumeReclaimPolicy) (ctrl.Result, error) {
	peer, ok := r.Peers.Get(b.ClusterID)
	if !ok {
		return ctrl.Result{}, fmt.Errorf("claim %s/%s: its pod is on virtual node %s but no peering with cluster %s is running", pvc.Namespace, pvc.Name, b.Node, b.ClusterID)
	}
	twinNS, err := pod.OffloadingMapper(r.Client, peer.ClusterName, peer.ClusterID)(ctx, pvc.Namespace)
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("claim %s/%s: %w", pvc.Namespace, pvc.Name, err)
	}
	class, err := offeredStorageClass(ctx, peer)
	if err != nil {
		return ctrl.Result{}, err
	}
	return r.ensureRemoteTwin(ctx, pvc, peer, twinNS, class, b, reclaim)
}

// ensureRemoteTwin makes (or finds) the twin claim of class in twinNS on the
// peer, then the virtual volume held to the peer's virtual node. A claim of
// that name there that is not this claim's twin is never taken over.
func (r *VirtualStorageReconciler) ensureRemoteTwin(ctx context.Context, pvc *corev1.PersistentVolumeClaim, peer remote.Peer, twinNS string,
	class *string, b policies.StorageBinding, reclaim corev1.PersistentVolumeReclaimPolicy) (ctrl.Result, error) {
	claims := peer.Client.CoreV1().PersistentVolumeClaims(twinNS)
	twin, err := claims.Get(ctx, pvc.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		twin = policies.TwinClaim(pvc, twinNS, pvc.Name, class, "")
		twin.Labels[sharingv1alpha1.OriginClusterIDLabel] = r.LocalClusterID
		if twin, err = claims.Create(ctx, twin, metav1.CreateOptions{}); err != nil {
			return ctrl.Result{}, fmt.Errorf("creating the twin claim %s/%s on cluster %s: %w", twinNS, pvc.Name, peer.ClusterName, err)
		}
	case err != nil:
		return ctrl.Result{}, fmt.Errorf("reading the twin claim %s/%s on cluster %s: %w", twinNS, pvc.Name, peer.ClusterName, err)
	case twin.Labels[sharingv1alpha1.VirtualClaimUIDLabel] != string(pvc.UID):
		return ctrl.Result{}, fmt.Errorf("claim %s/%s on cluster %s is not the twin of %s/%s (label %s): a claim of that name was made there by someone else; rename one of them",
			twinNS, pvc.Name, peer.ClusterName, pvc.Namespace, pvc.Name, sharingv1alpha1.VirtualClaimUIDLabel)
	}
	pv := policies.MirrorRemoteVolume(pvc, b, twinNS, reclaim)
	annotate(pv, policies.RemoteVolumeAnnotations(twin))
	return ctrl.Result{}, r.createVolume(ctx, pv)
}

// offeredStorageClass is the class the provider's offer names; nil (the
// provider's default class) when it names none.
func offeredStorageClass(ctx context.Context, peer remote.Peer) (*string, error) {
	cm, err := peer.Client.CoreV1().ConfigMaps(peer.TenantNamespace).Get(ctx, sharingv1alpha1.OfferConfigMapName, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the offer of cluster %s (%s/%s): %w", peer.ClusterName, peer.TenantNamespace, sharingv1alpha1.OfferConfigMapName, err)
	}
	if class := cm.Data[sharingv1alpha1.OfferStorageClassKey]; class != "" {
		return &class, nil
	}
	return nil, nil
}

// annotate sets the annotations over the volume's own.
func annotate(pv *corev1.PersistentVolume, add map[string]string) {
	if pv.Annotations == nil {
		pv.Annotations = map[string]string{}
	}
	maps.Copy(pv.Annotations, add)
}
