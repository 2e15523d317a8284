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

import "github.com/fluxcd/pkg/apis/meta"

// RequiredName is the only name a NamespaceOffloading may have; fixing it
// makes "one per namespace" a property of the API rather than of a controller.
const RequiredName = "offloading"

// Namespace label that opts a namespace's pods into offloading.
const (
	// SchedulingEnabledLabel, set to SchedulingEnabledValue on a namespace,
	// marks it as offloaded so that the pod webhook handles its pods. Setting
	// it ahead of the NamespaceOffloading avoids pods slipping through before
	// the controller has acted.
	SchedulingEnabledLabel = "liqo.io/scheduling-enabled"
	// SchedulingEnabledValue is the only value SchedulingEnabledLabel takes.
	SchedulingEnabledValue = "true"
)

// VirtualNodeTaintKey is the NoExecute taint on every virtual node. Only pods
// of offloaded namespaces get a toleration for it, so ordinary pods never land
// on a virtual node by accident.
const VirtualNodeTaintKey = "virtual-node.liqo.io/not-allowed"

// Pod annotations that spread offloaded pods across the remote cluster's
// nodes, which the single virtual node would otherwise hide.
const (
	// AntiAffinityPresetAnnotation selects one of the AntiAffinityPreset*
	// values.
	AntiAffinityPresetAnnotation = "liqo.io/anti-affinity-preset"
	// AntiAffinityLabelsAnnotation lists, comma separated, the label keys
	// whose values identify the pods to keep apart under the soft and hard
	// presets.
	AntiAffinityLabelsAnnotation = "liqo.io/anti-affinity-labels"

	// AntiAffinityPresetPropagate forwards the pod's own anti-affinity to
	// the remote cluster unchanged.
	AntiAffinityPresetPropagate = "propagate"
	// AntiAffinityPresetSoft asks the remote scheduler to prefer different
	// nodes for pods sharing the listed labels.
	AntiAffinityPresetSoft = "soft"
	// AntiAffinityPresetHard requires different remote nodes for pods
	// sharing the listed labels.
	AntiAffinityPresetHard = "hard"
)

// Condition types on NamespaceOffloading.status.conditions.
const (
	// ReadyCondition is true when the offloading phase is Ready.
	ReadyCondition = meta.ReadyCondition
	// ReconcilingCondition is true while remote namespaces are reconciled.
	ReconcilingCondition = meta.ReconcilingCondition
	// StalledCondition is true when progress needs a human.
	StalledCondition = meta.StalledCondition
)

// Reasons used on NamespaceOffloading conditions and remote namespace
// conditions.
const (
	// SuspendedReason explains that reconciliation is paused by spec.suspend.
	SuspendedReason = "Suspended"
	// NamespaceCreatedReason: the remote namespace exists and is usable.
	NamespaceCreatedReason = "NamespaceCreated"
	// NamespaceCreationFailedReason: the peer refused or failed to create it.
	NamespaceCreationFailedReason = "NamespaceCreationFailed"
	// NamespaceNameConflictReason: with EnforceSameName, a namespace of that
	// name already exists in the peer and is not ours.
	NamespaceNameConflictReason = "NamespaceNameConflict"
	// ClusterSelectedReason: the peer matches spec.clusterSelector.
	ClusterSelectedReason = "ClusterSelected"
	// ClusterNotSelectedReason: the peer does not match spec.clusterSelector.
	ClusterNotSelectedReason = "ClusterNotSelected"
	// InvalidClusterSelectorReason: the selector cannot be evaluated.
	InvalidClusterSelectorReason = "InvalidClusterSelector"
	// ManagerNamespaceReason: the NamespaceOffloading is in the manager's own
	// namespace, which holds every peering's credentials and is never offloaded.
	ManagerNamespaceReason = "ManagerNamespace"
)

// NotReadyTolerationSecondsAnnotation is set on a NamespaceOffloading to say how
// long the namespace's pods on a virtual node tolerate it being NotReady or
// unreachable before Kubernetes evicts them: a whole number of seconds. Unset,
// they tolerate it for ever, because the remote copy of a pod keeps running
// through a partition and an eviction would start a second one
// (docs/faults.md). It is an annotation, not a spec field, so that Liqo's
// v1alpha1 schema stays as it is and a client built on Liqo's types keeps it
// through a read-modify-write.
const NotReadyTolerationSecondsAnnotation = "offloading.spillway.liqo.io/not-ready-toleration-seconds"
