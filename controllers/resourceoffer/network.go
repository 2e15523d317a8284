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

package resourceoffer

import (
	"context"
	"fmt"
	"time"

	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/network/fabric"
)

// NetworkReadyCondition reports the provider's end of the consumer's tunnel.
// It stays apart from Ready: the offer is valid and published whatever the
// network does, and the consumer's ForeignCluster is where a peering's
// health (Ready) is judged.
const NetworkReadyCondition = "NetworkReady"

// networkResync refreshes NetworkReady while a fabric runs: gateway states
// change without any event in the API.
const networkResync = 10 * time.Second

// syncNetwork reads the consumer's gateway parameters from its tenant
// namespace, runs this side's gateway, and publishes the provider's
// parameters next to the offer.
func (r *ResourceOfferReconciler) syncNetwork(ctx context.Context, s *scope) (*fabric.State, error) {
	remote := fabric.Published{Source: fmt.Sprintf("ConfigMap %s/%s (written by cluster %s)",
		s.tenantNamespace, sharingv1alpha1.ConsumerNetworkConfigMapName, s.clusterID)}
	cm := &corev1.ConfigMap{}
	err := r.Get(ctx, client.ObjectKey{Namespace: s.tenantNamespace, Name: sharingv1alpha1.ConsumerNetworkConfigMapName}, cm)
	switch {
	case err == nil:
		remote.Found, remote.Data = true, cm.Data
	case !apierrors.IsNotFound(err):
		return nil, fmt.Errorf("reading %s: %w", remote.Source, err)
	}
	publish, st, err := r.Fabric.Sync(ctx, fabric.Peer{ClusterID: s.clusterID, Role: fabric.Provider}, remote)
	if err != nil {
		return nil, err
	}
	out := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.tenantNamespace, Name: sharingv1alpha1.ProviderNetworkConfigMapName}}
	if err := r.createOrUpdate(ctx, out, func() error {
		consumerLabels(out, s.clusterID)
		out.Data = publish
		return nil
	}); err != nil {
		return nil, err
	}
	return &st, nil
}

// applyNetworkStatus writes NetworkReady, or removes it when no fabric runs.
func applyNetworkStatus(offer *sharingv1alpha1.ResourceOffer, st *fabric.State) {
	switch {
	case st == nil:
		conditions.Delete(offer, NetworkReadyCondition)
	case st.Phase == fabric.PhaseConnected:
		conditions.MarkTrue(offer, NetworkReadyCondition, st.Reason, "%s", st.Message)
	default:
		conditions.MarkFalse(offer, NetworkReadyCondition, st.Reason, "%s: %s", st.Phase, st.Message)
	}
}
