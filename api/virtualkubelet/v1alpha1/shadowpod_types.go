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

// ShadowPodSpec carries the pod the consumer wants run here.
type ShadowPodSpec struct {
	// Pod is the spec of the pod to create in the provider cluster, already
	// translated by the consumer (remote names, tolerations, ...).
	//
	// The consumer writes it whole and nobody else writes it, so the API
	// server tracks its ownership as one field (atomic) instead of one entry
	// per field of the pod: the schema still types and prunes every field,
	// but each ShadowPod's managedFields no longer repeat the pod's shape,
	// which the provider's API server held, encoded and compared on every
	// write of every ShadowPod (issue 17, lever 32).
	// +required
	// +structType=atomic
	Pod corev1.PodSpec `json:"pod"`
}

// ShadowPodStatus mirrors the state of the pod created from the ShadowPod.
// It is first written when the pod's state says something (Ready, a reason
// for waiting such as Unschedulable or ImagePullBackOff, terminal, refused,
// recreated): a pod that is merely starting (Pending, no reason given) leaves
// a new ShadowPod without status, which kstatus reads as InProgress. Once a
// status exists, every change is written.
type ShadowPodStatus struct {
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

	// Phase is the phase of the pod created from the ShadowPod.
	// +optional
	Phase corev1.PodPhase `json:"phase,omitempty"`
}

// ShadowPod is the provider-side stand-in for a pod a consumer offloaded. The
// provider turns it into a real Pod it owns, so that the consumer never needs
// permission to create Pods directly and the provider can enforce its limits.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=shpod,categories=liqo
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ShadowPod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the pod to run.
	// +required
	Spec ShadowPodSpec `json:"spec"`

	// Status is the state of the pod.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ShadowPodStatus `json:"status,omitempty"`
}

// GetConditions returns the summary conditions; together with SetConditions
// it lets fluxcd/pkg/runtime/conditions helpers manage them.
func (in *ShadowPod) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions replaces the summary conditions.
func (in *ShadowPod) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}

// ShadowPodList is a list of ShadowPods.
// +kubebuilder:object:root=true
type ShadowPodList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the ShadowPods.
	Items []ShadowPod `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ShadowPod{}, &ShadowPodList{})
}
