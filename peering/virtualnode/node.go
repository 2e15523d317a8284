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

// Package virtualnode keeps the node that stands for a provider cluster in the
// consumer: registered, heartbeating through a lease, sized by the provider's
// offer, and Ready only while the provider's API server answers. It runs the
// virtual-kubelet node controller inside the Spillway manager, one per peering.
package virtualnode

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// Reasons of the Ready condition.
const (
	ReasonRemoteReady       = "RemoteClusterReady"
	ReasonRemoteUnreachable = "RemoteClusterUnreachable"
)

// Spec is what a virtual node advertises.
type Spec struct {
	// Name is liqo-<provider cluster name>.
	Name            string
	RemoteClusterID string
	// Labels the provider declares for its cluster (topology.liqo.io/region ...).
	Labels   map[string]string
	Capacity corev1.ResourceList
	// KubeletVersion is shown in `kubectl get nodes`; the provider's version.
	KubeletVersion string
	// Address and Port are where the virtual kubelet's HTTP API (logs, exec)
	// listens: the manager's APIServer, shared by all its nodes.
	Address string
	Port    int32
}

// DesiredLabels are the node's labels (api/virtualkubelet/v1alpha1.VirtualNodeLabels).
func DesiredLabels(s Spec) map[string]string {
	return virtualkubeletv1alpha1.VirtualNodeLabels(s.Name, s.RemoteClusterID, s.Labels)
}

// Taint is the virtual-node taint.
func Taint() corev1.Taint {
	return corev1.Taint{Key: virtualkubeletv1alpha1.TaintKey, Value: virtualkubeletv1alpha1.TaintValue, Effect: corev1.TaintEffectNoExecute}
}

// Addresses are where the API server reaches the node's kubelet API: the
// manager's InternalIP only. A Hostname address would be the node's name,
// which resolves nowhere, and the API server's default
// --kubelet-preferred-address-types tries Hostname first.
func Addresses(s Spec) []corev1.NodeAddress {
	return []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: s.Address}}
}

// Health is the remote cluster's state as the probe last saw it.
type Health struct {
	Ready   bool
	Message string
}

// NodeFor builds the virtual node object for spec and health: capacity and
// allocatable are the offer, Ready follows the provider's API server.
func NodeFor(s Spec, h Health) *corev1.Node {
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: ReasonRemoteReady,
		Message: "the provider's API server answers"}
	if !h.Ready {
		ready.Status, ready.Reason, ready.Message = corev1.ConditionFalse, ReasonRemoteUnreachable, h.Message
	}
	now := metav1.Now()
	conds := []corev1.NodeCondition{ready}
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeNetworkUnavailable} {
		conds = append(conds, corev1.NodeCondition{Type: t, Status: corev1.ConditionFalse, Reason: "Virtual", Message: "not applicable to a virtual node"})
	}
	for i := range conds {
		conds[i].LastHeartbeatTime, conds[i].LastTransitionTime = now, now
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: s.Name, Labels: DesiredLabels(s)},
		Spec:       corev1.NodeSpec{Taints: []corev1.Taint{Taint()}},
		Status: corev1.NodeStatus{
			Capacity: s.Capacity.DeepCopy(), Allocatable: s.Capacity.DeepCopy(),
			Conditions:      conds,
			Addresses:       Addresses(s),
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: s.Port}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: s.KubeletVersion, OperatingSystem: "linux", Architecture: "amd64",
				ContainerRuntimeVersion: "spillway://remote"},
		},
	}
}
