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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// VolumeMove is the declarative form of Liqo's `liqoctl move volume`: the
// claim spec.claimName of this namespace is to hold its data on
// spec.nodeName. It lives in sharing.liqo.io next to the storage fabric's
// other names (storage.go) because it is Spillway's storage API, served by
// Spillway's CRDs; Liqo has no kind of this name. A move runs only while no
// pod mounts the claim; once done it stays Ready, saying where the claim is.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=liqo
// +kubebuilder:printcolumn:name="Claim",type=string,JSONPath=`.spec.claimName`
// +kubebuilder:printcolumn:name="Node",type=string,JSONPath=`.spec.nodeName`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type VolumeMove struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the move asked for.
	// +required
	Spec VolumeMoveSpec `json:"spec"`

	// Status is how the move stands.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status VolumeMoveStatus `json:"status,omitempty"`
}

// VolumeMoveSpec names the claim and where its data goes.
type VolumeMoveSpec struct {
	// ClaimName is the PersistentVolumeClaim of class liqo, in this
	// VolumeMove's namespace, whose data moves.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.claimName is immutable: write another VolumeMove for another claim"
	ClaimName string `json:"claimName"`

	// NodeName is the node the data moves to: a node of this cluster, or
	// the virtual node of a peer (liqo-<cluster>). The next pod of the
	// claim is scheduled there.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	NodeName string `json:"nodeName"`
}

// VolumeMoveStatus is the Flux-style summary of a move.
type VolumeMoveStatus struct {
	// ObservedGeneration is the spec generation the status reflects. It starts
	// at -1 so that kstatus treats a never-reconciled object as in progress.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions holds Ready, Reconciling and Stalled; Ready's reason says
	// which step the move is at or why it cannot run.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ReconcileRequestStatus records the last handled reconcile request.
	meta.ReconcileRequestStatus `json:",inline"`
}

// VolumeMoveList is a list of VolumeMoves.
// +kubebuilder:object:root=true
type VolumeMoveList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []VolumeMove `json:"items"`
}

// GetConditions returns the summary conditions.
func (in *VolumeMove) GetConditions() []metav1.Condition { return in.Status.Conditions }

// SetConditions replaces the summary conditions.
func (in *VolumeMove) SetConditions(c []metav1.Condition) { in.Status.Conditions = c }

// GetLastHandledReconcileRequest returns the last reconcile.fluxcd.io/requestedAt value handled.
func (in *VolumeMove) GetLastHandledReconcileRequest() string {
	return in.Status.LastHandledReconcileAt
}

// SetLastHandledReconcileRequest records a handled reconcile.fluxcd.io/requestedAt value.
func (in *VolumeMove) SetLastHandledReconcileRequest(v string) { in.Status.LastHandledReconcileAt = v }

// SetObservedGeneration records the generation the status describes.
func (in *VolumeMove) SetObservedGeneration(g int64) { in.Status.ObservedGeneration = g }

func init() {
	SchemeBuilder.Register(&VolumeMove{}, &VolumeMoveList{})
}

// The names a move puts on the objects it makes.
const (
	// VolumeMoveLabel carries the UID of the VolumeMove that made an object
	// (the target claim, the copy Jobs and their Secret, the target volume
	// while it is rebound).
	VolumeMoveLabel = "storage.liqo.io/volume-move"
	// MovedClaimAnnotation on the target volume, while it is rebound, holds
	// the moved claim as JSON (labels, annotations, owners, spec): what the
	// claim is made again from, bound to that volume.
	MovedClaimAnnotation = "storage.liqo.io/moved-claim"
	// MovedClaimUIDAnnotation on the target volume, while it is rebound, is
	// the UID of the claim that is moved, deleted once the copy is verified.
	MovedClaimUIDAnnotation = "storage.liqo.io/moved-claim-uid"
	// MovedReclaimPolicyAnnotation on the target volume, while it is
	// rebound, is the reclaim policy it gets back once the claim is bound.
	MovedReclaimPolicyAnnotation = "storage.liqo.io/moved-reclaim-policy"
)
