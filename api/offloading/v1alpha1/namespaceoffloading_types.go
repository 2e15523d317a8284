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
	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceMappingStrategy decides the name of the namespace created in each
// remote cluster.
// +kubebuilder:validation:Enum=DefaultName;EnforceSameName
type NamespaceMappingStrategy string

const (
	// DefaultNameMappingStrategy derives a remote name that includes this
	// cluster's identity, so namespaces from different consumers never clash.
	DefaultNameMappingStrategy NamespaceMappingStrategy = "DefaultName"
	// EnforceSameNameMappingStrategy uses the local name unchanged; needed by
	// applications that hard-code namespace names in DNS names, at the risk of
	// clashing with an existing remote namespace.
	EnforceSameNameMappingStrategy NamespaceMappingStrategy = "EnforceSameName"
)

// PodOffloadingStrategy decides where the pods of the namespace may run.
// +kubebuilder:validation:Enum=LocalAndRemote;Local;Remote
type PodOffloadingStrategy string

const (
	// LocalAndRemotePodOffloadingStrategy lets the scheduler pick local nodes
	// or virtual nodes.
	LocalAndRemotePodOffloadingStrategy PodOffloadingStrategy = "LocalAndRemote"
	// LocalPodOffloadingStrategy keeps pods on local nodes; only the other
	// resources (services, config) are extended to the peers.
	LocalPodOffloadingStrategy PodOffloadingStrategy = "Local"
	// RemotePodOffloadingStrategy forces pods onto virtual nodes.
	RemotePodOffloadingStrategy PodOffloadingStrategy = "Remote"
)

// NamespaceOffloadingSpec is how one namespace is extended to peers.
type NamespaceOffloadingSpec struct {
	// NamespaceMappingStrategy decides the remote namespace name. It cannot
	// change later because remote namespaces are never renamed.
	// +optional
	// +kubebuilder:default=DefaultName
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.namespaceMappingStrategy is immutable: delete and recreate the NamespaceOffloading to change it"
	NamespaceMappingStrategy NamespaceMappingStrategy `json:"namespaceMappingStrategy,omitempty"`

	// PodOffloadingStrategy decides where the namespace's pods may run.
	// +optional
	// +kubebuilder:default=LocalAndRemote
	PodOffloadingStrategy PodOffloadingStrategy `json:"podOffloadingStrategy,omitempty"`

	// ClusterSelector picks the peers to extend the namespace to, matched
	// against the labels of their virtual nodes. Terms are ORed, expressions
	// within a term ANDed, exactly like node affinity. Leave it out (or give
	// an empty nodeSelectorTerms list) to select every peer.
	// +optional
	ClusterSelector *corev1.NodeSelector `json:"clusterSelector,omitempty"`

	// Suspend stops the controller from changing remote namespaces; existing
	// ones and their workloads are left as they are.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// RemoteNamespaceConditionType names a fact about one remote namespace.
// +kubebuilder:validation:Enum=Ready;OffloadingRequired
type RemoteNamespaceConditionType string

const (
	// NamespaceReadyCondition is true when the remote namespace exists and
	// is usable by this cluster.
	NamespaceReadyCondition RemoteNamespaceConditionType = "Ready"
	// NamespaceOffloadingRequiredCondition is true when the peer is selected
	// by spec.clusterSelector, i.e. the namespace should exist there.
	NamespaceOffloadingRequiredCondition RemoteNamespaceConditionType = "OffloadingRequired"
)

// RemoteNamespaceCondition is one fact about the namespace in one peer.
type RemoteNamespaceCondition struct {
	// Type is the fact described.
	// +required
	Type RemoteNamespaceConditionType `json:"type"`

	// Status is True, False or Unknown.
	// +required
	// +kubebuilder:validation:Enum=True;False;Unknown
	Status metav1.ConditionStatus `json:"status"`

	// Reason is a CamelCase, machine-readable cause of the last transition.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Reason string `json:"reason,omitempty"`

	// Message explains the last transition to a human.
	// +optional
	// +kubebuilder:validation:MaxLength=32768
	Message string `json:"message,omitempty"`

	// LastTransitionTime is when Status last changed.
	// +optional
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// RemoteNamespaceConditions are the facts about the namespace in one peer,
// at most one per type.
// +listType=map
// +listMapKey=type
type RemoteNamespaceConditions []RemoteNamespaceCondition

// OffloadingPhase summarises the state across all selected peers.
// +kubebuilder:validation:Enum=Ready;NoClusterSelected;InProgress;SomeFailed;AllFailed;Terminating
type OffloadingPhase string

const (
	// ReadyOffloadingPhase means the namespace exists in every selected peer.
	ReadyOffloadingPhase OffloadingPhase = "Ready"
	// NoClusterSelectedOffloadingPhase means the selector matches no peer.
	NoClusterSelectedOffloadingPhase OffloadingPhase = "NoClusterSelected"
	// InProgressOffloadingPhase means some remote namespaces are being created.
	InProgressOffloadingPhase OffloadingPhase = "InProgress"
	// SomeFailedOffloadingPhase means creation failed in some selected peers.
	SomeFailedOffloadingPhase OffloadingPhase = "SomeFailed"
	// AllFailedOffloadingPhase means creation failed in every selected peer.
	AllFailedOffloadingPhase OffloadingPhase = "AllFailed"
	// TerminatingOffloadingPhase means remote namespaces are being deleted.
	TerminatingOffloadingPhase OffloadingPhase = "Terminating"
)

// NamespaceOffloadingStatus is the observed state across peers.
type NamespaceOffloadingStatus struct {
	// ObservedGeneration is the spec generation the status reflects. It starts
	// at -1 so that kstatus treats a never-reconciled object as in progress.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions holds the Flux-style summary conditions (Ready, Reconciling,
	// Stalled).
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ReconcileRequestStatus records the last handled reconcile request.
	meta.ReconcileRequestStatus `json:",inline"`

	// RemoteNamespaceName is the name the namespace has in the peers, as
	// decided by spec.namespaceMappingStrategy.
	// +optional
	RemoteNamespaceName string `json:"remoteNamespaceName,omitempty"`

	// RemoteNamespacesConditions holds, per remote cluster ID, the facts about
	// the namespace in that peer.
	// +optional
	RemoteNamespacesConditions map[string]RemoteNamespaceConditions `json:"remoteNamespacesConditions,omitempty"`

	// OffloadingPhase summarises RemoteNamespacesConditions.
	// +optional
	OffloadingPhase OffloadingPhase `json:"offloadingPhase,omitempty"`
}

// NamespaceOffloading extends the namespace it lives in to a set of peers and
// says where the namespace's pods may run. There is at most one per
// namespace, which is why its name is fixed to "offloading".
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=nsof,categories=liqo
// +kubebuilder:validation:XValidation:rule="self.metadata.name == 'offloading'",message="a NamespaceOffloading must be named 'offloading': there is one per namespace"
// +kubebuilder:printcolumn:name="Mapping",type=string,JSONPath=`.spec.namespaceMappingStrategy`
// +kubebuilder:printcolumn:name="Pod Strategy",type=string,JSONPath=`.spec.podOffloadingStrategy`
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.offloadingPhase`
// +kubebuilder:printcolumn:name="Remote Namespace",type=string,JSONPath=`.status.remoteNamespaceName`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type NamespaceOffloading struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired offloading. An empty spec is valid and means
	// "every peer, default strategies"; the schema default makes the field
	// defaults apply even when spec is left out.
	// +optional
	// +kubebuilder:default={}
	Spec NamespaceOffloadingSpec `json:"spec,omitempty"`

	// Status is the observed offloading.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status NamespaceOffloadingStatus `json:"status,omitempty"`
}

// GetConditions returns the summary conditions; together with SetConditions
// it lets fluxcd/pkg/runtime/conditions helpers manage them.
func (in *NamespaceOffloading) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions replaces the summary conditions.
func (in *NamespaceOffloading) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}

// SelectsEveryCluster reports whether the selector leaves every peer in,
// which is the case when it is absent or has no terms.
func (in *NamespaceOffloading) SelectsEveryCluster() bool {
	return in.Spec.ClusterSelector == nil || len(in.Spec.ClusterSelector.NodeSelectorTerms) == 0
}

// NamespaceOffloadingList is a list of NamespaceOffloadings.
// +kubebuilder:object:root=true
type NamespaceOffloadingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the NamespaceOffloadings.
	Items []NamespaceOffloading `json:"items"`
}

func init() {
	SchemeBuilder.Register(&NamespaceOffloading{}, &NamespaceOffloadingList{})
}
