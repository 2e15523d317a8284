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

package foreigncluster

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/network/fabric"
)

// ReasonNetworkPublishFailed means this cluster's gateway parameters could not be
// written on the provider.
const ReasonNetworkPublishFailed = "NetworkPublishFailed"

// networkWanted says whether this peering gets a gateway: the manager runs a
// fabric (--gateway-address) and the ForeignCluster does not opt out.
func (r *ForeignClusterReconciler) networkWanted(fc *discoveryv1alpha1.ForeignCluster) bool {
	return r.Fabric != nil && fc.Spec.NetworkingEnabled != discoveryv1alpha1.NetworkingEnabledNo
}

// syncNetwork exchanges gateway parameters with the provider through the
// tenant namespace (reading the provider's ConfigMap, writing ours) and runs
// this side's gateway. Problems with the peer are in the returned state; only
// local API errors are returned.
func (r *ForeignClusterReconciler) syncNetwork(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster, provider kubernetes.Interface, tenant string) (*fabric.State, error) {
	remote := fabric.Published{Source: fmt.Sprintf("ConfigMap %s/%s on %s", tenant, sharingv1alpha1.ProviderNetworkConfigMapName, clusterName(fc))}
	cm, err := provider.CoreV1().ConfigMaps(tenant).Get(ctx, sharingv1alpha1.ProviderNetworkConfigMapName, metav1.GetOptions{})
	switch {
	case err == nil:
		remote.Found, remote.Data = true, cm.Data
	case !apierrors.IsNotFound(err):
		return &fabric.State{Phase: fabric.PhasePending, Reason: discoveryv1alpha1.APIServerUnreachableReason,
			Message: fmt.Sprintf("reading %s: %v", remote.Source, err)}, nil
	}
	publish, st, err := r.Fabric.Sync(ctx, fabric.Peer{ClusterID: fc.Spec.ClusterIdentity.ClusterID, Role: fabric.Consumer}, remote)
	if err != nil {
		return nil, err
	}
	if err := publishConsumerNetwork(ctx, provider, tenant, r.LocalClusterID, publish); err != nil {
		return &fabric.State{Phase: fabric.PhaseError, Reason: ReasonNetworkPublishFailed, Message: fmt.Sprintf(
			"writing ConfigMap %s/%s on %s: %v; the tenant Role on the provider must allow configmaps create/update",
			tenant, sharingv1alpha1.ConsumerNetworkConfigMapName, clusterName(fc), err)}, nil
	}
	return &st, nil
}

// publishConsumerNetwork creates or updates this cluster's parameters on the
// provider; unchanged data writes nothing.
func publishConsumerNetwork(ctx context.Context, provider kubernetes.Interface, tenant, localID string, data map[string]string) error {
	cms := provider.CoreV1().ConfigMaps(tenant)
	cm, err := cms.Get(ctx, sharingv1alpha1.ConsumerNetworkConfigMapName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: sharingv1alpha1.ConsumerNetworkConfigMapName,
			Labels: map[string]string{sharingv1alpha1.RemoteClusterIDLabel: localID}}, Data: data}
		_, err = cms.Create(ctx, cm, metav1.CreateOptions{FieldManager: "spillway"})
		return err
	}
	if err != nil {
		return err
	}
	if maps.Equal(cm.Data, data) && cm.Labels[sharingv1alpha1.RemoteClusterIDLabel] == localID {
		return nil
	}
	cm.Data = data
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels[sharingv1alpha1.RemoteClusterIDLabel] = localID
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: "spillway"})
	return err
}

// releaseNetwork stops the peering's gateway and forgets its key: the
// peering is gone or no longer wants networking.
func (r *ForeignClusterReconciler) releaseNetwork(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) error {
	if r.Fabric == nil {
		return nil
	}
	if err := r.Fabric.Release(ctx, fc.Spec.ClusterIdentity.ClusterID); err != nil {
		return fmt.Errorf("releasing the gateway of ForeignCluster %s: %w", fc.Name, err)
	}
	return nil
}

// networkCondition maps the fabric's phase onto Liqo's NetworkStatus values.
func networkCondition(st *fabric.State) discoveryv1alpha1.PeeringConditionStatus {
	if st == nil {
		return discoveryv1alpha1.PeeringConditionStatusNone
	}
	switch st.Phase {
	case fabric.PhaseConnected:
		return discoveryv1alpha1.PeeringConditionStatusEstablished
	case fabric.PhaseError:
		return discoveryv1alpha1.PeeringConditionStatusError
	}
	return discoveryv1alpha1.PeeringConditionStatusPending
}
