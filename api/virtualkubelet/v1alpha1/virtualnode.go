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

package v1alpha1

import (
	"maps"
	"slices"
)

// Labels and taint Liqo puts on a virtual node, spelled as Liqo does. They are
// part of the API: the CLI, the offloading controller and the scheduler's
// users select virtual nodes by them.
const (
	// TypeLabel with value TypeVirtualNode marks a node as virtual.
	TypeLabel       = "liqo.io/type"
	TypeVirtualNode = "virtual-node"
	// RemoteClusterIDLabel names the provider a virtual node stands for.
	RemoteClusterIDLabel = "liqo.io/remote-cluster-id"
	// BrokeredLabel, set to "true" among a broker's offered labels, marks
	// a virtual node whose capacity is already resold: no broker counts it
	// again (policies.ResellableFree).
	BrokeredLabel = "spillway.liqo.io/brokered"
	// TaintKey keeps ordinary pods off virtual nodes; the pod webhook adds the
	// toleration in namespaces that are offloaded.
	TaintKey   = "virtual-node.liqo.io/not-allowed"
	TaintValue = "true"
	// roleLabel makes `kubectl get nodes` show ROLES agent, as Liqo's nodes do.
	roleLabel = "node-role.kubernetes.io/agent"
)

// VirtualNodeName returns the virtual node name for a provider cluster name.
func VirtualNodeName(clusterName string) string { return "liqo-" + clusterName }

// VirtualNodeLabels are a virtual node's labels: the provider's cluster labels
// first, then Liqo's own, so a provider cannot relabel a node as physical.
func VirtualNodeLabels(nodeName, remoteClusterID string, providerLabels map[string]string) map[string]string {
	l := map[string]string{}
	maps.Copy(l, providerLabels)
	maps.Copy(l, map[string]string{
		TypeLabel: TypeVirtualNode, RemoteClusterIDLabel: remoteClusterID,
		"kubernetes.io/hostname": nodeName, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
		"type": "virtual-kubelet", roleLabel: "",
	})
	return l
}

// ReservedLabelKeys are the keys no offer may derive for a virtual node: the
// ones VirtualNodeLabels sets itself, which would overwrite a provider's,
// and BrokeredLabel, which only spec.broker decides. The ResourceOffer CRD's
// rule on spec.exposedLabelKeys spells the same list.
func ReservedLabelKeys() []string {
	keys := slices.Collect(maps.Keys(VirtualNodeLabels("", "", nil)))
	keys = append(keys, BrokeredLabel)
	slices.Sort(keys)
	return keys
}
