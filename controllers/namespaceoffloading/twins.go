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
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrl "sigs.k8s.io/controller-runtime"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// syncTwins asks every selected peer for the twin namespace and withdraws the
// request from peers no longer selected. Each peer's outcome is independent:
// one unreachable provider does not stop the others.
func (r *NamespaceOffloadingReconciler) syncTwins(ctx context.Context, localNs, remoteName string, nodes []corev1.Node, selected []string) []peerOutcome {
	var out []peerOutcome
	for _, n := range nodes {
		id := n.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel]
		name := strings.TrimPrefix(n.Name, "liqo-")
		o := peerOutcome{clusterID: id, clusterName: name, key: policies.UniqueClusterName(name, id), selected: slices.Contains(selected, id)}
		peer, connected := r.Peers.Get(id)
		o.connected = connected
		switch {
		case !connected:
		case o.selected:
			var created bool
			o.phase, o.message, created = requestTwin(ctx, peer.Client, peer.TenantNamespace, localNs, remoteName)
			if _, still := r.Peers.Get(id); created && !still {
				// Unpeering withdrew the peer while the request was on its
				// way; it may already have released the requests it found,
				// and would never see this one.
				// A take-back that fails is logged: the status only says the
				// peering is down, and no later reconcile reaches this peer.
				o.connected, o.phase, o.message = false, "", ""
				if err := withdrawTwin(ctx, peer.Client, peer.TenantNamespace, remoteName); err != nil {
					ctrl.LoggerFrom(ctx).Error(err, "a twin request made as its peer was withdrawn could not be taken back; delete it on the provider",
						"peer", name, "tenantNamespace", peer.TenantNamespace, "request", sharingv1alpha1.TwinRequestName(remoteName))
				}
			}
		default:
			if err := withdrawTwin(ctx, peer.Client, peer.TenantNamespace, remoteName); err != nil {
				o.message = err.Error()
			}
		}
		out = append(out, o)
	}
	return out
}

// requestTwin creates (or reads) the twin request and returns the provider's
// answer; created tells whether this call made the request.
func requestTwin(ctx context.Context, cs kubernetes.Interface, tenant, localNs, remoteName string) (phase, message string, created bool) {
	cms := cs.CoreV1().ConfigMaps(tenant)
	name := sharingv1alpha1.TwinRequestName(remoteName)
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm, err = cms.Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{sharingv1alpha1.TwinRequestLabel: "true"}},
			Data:       map[string]string{sharingv1alpha1.TwinRemoteNamespaceKey: remoteName, sharingv1alpha1.TwinLocalNamespaceKey: localNs},
		}, metav1.CreateOptions{})
		created = err == nil
	}
	if err != nil {
		return sharingv1alpha1.TwinPhaseFailed, fmt.Sprintf("requesting twin namespace %s: %v", remoteName, err), false
	}
	if cm.Data[sharingv1alpha1.TwinLocalNamespaceKey] != localNs {
		return sharingv1alpha1.TwinPhaseConflict, fmt.Sprintf("twin namespace %s is already requested for local namespace %q", remoteName, cm.Data[sharingv1alpha1.TwinLocalNamespaceKey]), created
	}
	return cm.Data[sharingv1alpha1.TwinPhaseKey], cm.Data[sharingv1alpha1.TwinMessageKey], created
}

// withdrawTwin deletes the request; the provider removes the twin once no pod
// of ours remains in it.
func withdrawTwin(ctx context.Context, cs kubernetes.Interface, tenant, remoteName string) error {
	err := cs.CoreV1().ConfigMaps(tenant).Delete(ctx, sharingv1alpha1.TwinRequestName(remoteName), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("withdrawing twin namespace %s: %w", remoteName, err)
	}
	return nil
}

// twinRequested reports whether a request still exists on the peer.
func twinRequested(ctx context.Context, cs kubernetes.Interface, tenant, remoteName string) (bool, error) {
	_, err := cs.CoreV1().ConfigMaps(tenant).Get(ctx, sharingv1alpha1.TwinRequestName(remoteName), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
