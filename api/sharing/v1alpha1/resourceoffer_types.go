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
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// OfferedResources bounds what a provider hands to one consumer.
type OfferedResources struct {
	// Limits is the fixed amount of each resource offered, e.g. cpu, memory,
	// nvidia.com/gpu. The consumer's virtual node advertises exactly this as
	// its capacity and allocatable.
	// +optional
	Limits corev1.ResourceList `json:"limits,omitempty"`
}

// ResourceOfferSpec is what a provider cluster offers to one consumer.
//
// The offer is either fixed (resources.limits) or proportional
// (sharingPercentage of the provider's free allocatable). When neither is set
// the controller offers DefaultSharingPercentage (90) percent; the default is
// applied in Go, not by the schema, so that setting limits never conflicts
// with a defaulted percentage.
// +kubebuilder:validation:XValidation:rule="!(has(self.resources) && has(self.resources.limits) && size(self.resources.limits) > 0 && has(self.sharingPercentage))",message="spec.resources.limits and spec.sharingPercentage are mutually exclusive: set fixed limits or a percentage of free allocatable, not both"
// +kubebuilder:validation:XValidation:rule="!(has(self.broker) && self.broker && has(self.resources) && has(self.resources.limits) && size(self.resources.limits) > 0)",message="spec.broker and spec.resources.limits are mutually exclusive: a broker offers a percentage (spec.sharingPercentage) of its providers' offers; remove spec.resources.limits or spec.broker"
// +kubebuilder:validation:XValidation:rule="!has(self.exposedLabelKeys) || size(self.exposedLabelKeys) == 0 || (has(self.broker) && self.broker)",message="spec.exposedLabelKeys needs spec.broker: true: only a broker derives labels from its providers' virtual nodes; set spec.broker: true, or put the labels in spec.labels"
type ResourceOfferSpec struct {
	// ClusterID is the cluster ID of the consumer this offer is for.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.clusterId is immutable: create a new ResourceOffer for another consumer"
	ClusterID string `json:"clusterId"`

	// ClusterName is a human-friendly name of the consumer, for display only.
	// +optional
	ClusterName string `json:"clusterName,omitempty"`

	// Resources is a fixed offer. Leave it out to offer a percentage instead.
	// +optional
	Resources *OfferedResources `json:"resources,omitempty"`

	// SharingPercentage offers this percentage (1-100) of the provider's free
	// allocatable resources, recomputed as the provider's load changes. Only
	// used when resources.limits is empty; defaults to 90 in that case.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	SharingPercentage *int32 `json:"sharingPercentage,omitempty"`

	// Broker makes this cluster a broker for the consumer: the offer is
	// sharingPercentage of the free capacity of this cluster's Ready virtual
	// nodes (its providers' offers), not of its own nodes, and the
	// consumer's pods that arrive here run on those virtual nodes, i.e. in
	// the providers. Two virtual nodes are never resold, so that clusters
	// peered in a ring cannot inflate each other's offers: the consumer's
	// own (its capacity offered back to it), and one fed by another
	// broker's offer (capacity is resold once, never twice). The consumer
	// cannot choose among the providers: this cluster's scheduler does.
	// +optional
	Broker bool `json:"broker,omitempty"`

	// Labels are cluster labels the provider advertises with the offer, such
	// as topology.liqo.io/region; the consumer copies them onto the virtual
	// node so workloads can target the peer with ordinary node selectors.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`

	// ExposedLabelKeys are label keys a broker (spec.broker) copies from its
	// providers' virtual nodes into this offer, so the consumer's virtual
	// node carries, say, the region all its providers share. A key is
	// published with the value the resold virtual nodes carry; when they
	// disagree it is left out (condition ExposedLabelConflict), because a
	// consumer's pod selecting a value could then be placed by this
	// cluster's scheduler on a provider with another. spec.labels wins for a
	// key it sets. Keys a virtual node sets itself (liqo.io/type,
	// liqo.io/remote-cluster-id, kubernetes.io/hostname, kubernetes.io/os,
	// kubernetes.io/arch, type, node-role.kubernetes.io/agent) and the
	// brokered label are refused: the consumer's node would overwrite them,
	// or they would make the offer lie about what it resells.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=317
	// +kubebuilder:validation:items:Pattern=`^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	// +kubebuilder:validation:items:XValidation:rule="self.split('/')[size(self.split('/')) - 1].size() <= 63 && (!self.contains('/') || self.split('/')[0].size() <= 253)",message="spec.exposedLabelKeys: a label key's name (after any prefix/) is at most 63 characters and its prefix at most 253"
	// +kubebuilder:validation:items:XValidation:rule="!(self in ['liqo.io/type', 'liqo.io/remote-cluster-id', 'kubernetes.io/hostname', 'kubernetes.io/os', 'kubernetes.io/arch', 'type', 'node-role.kubernetes.io/agent', 'spillway.liqo.io/brokered'])",message="spec.exposedLabelKeys: this key is set by the virtual node itself (or marks brokered capacity) and cannot be exposed; remove it from spec.exposedLabelKeys"
	ExposedLabelKeys []string `json:"exposedLabelKeys,omitempty"`

	// PodSecurityLevel is the Pod Security Standard the consumer's offloaded
	// pods must meet on this provider: baseline (the default) forbids
	// privileged containers, host namespaces, host ports, hostPath volumes and
	// capabilities beyond the baseline set; restricted also requires
	// runAsNonRoot, allowPrivilegeEscalation=false, capabilities drop ALL, a
	// RuntimeDefault or Localhost seccomp profile and only the restricted
	// volume types. The ShadowPod webhook enforces it, and the consumer's twin
	// namespaces carry pod-security.kubernetes.io/enforce=<level> so the API
	// server's Pod Security admission enforces it too. Whatever the level, a
	// ShadowPod cannot set nodeName or another ServiceAccount than the twin's
	// default.
	// +optional
	// +kubebuilder:validation:Enum=baseline;restricted
	// +kubebuilder:default=baseline
	PodSecurityLevel PodSecurityLevel `json:"podSecurityLevel,omitempty"`

	// StorageClassName is the class of this provider that the consumer's
	// claims of the liqo virtual storage class get when their pods run here
	// (the seed's "storage class negotiated at peering time"). Empty: the
	// provider's default class.
	// +optional
	StorageClassName string `json:"storageClassName,omitempty"`

	// ExternalStorageClasses are classes of this provider that the
	// consumer's claims may name directly (externally managed storage): a
	// claim of one of them in an offloaded namespace, of a class the consumer
	// does not have, is made here in the namespace's twin and bound here, and
	// its pods run here. A class not listed is refused in twins, so a
	// consumer cannot reach classes this provider keeps for itself.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	ExternalStorageClasses []string `json:"externalStorageClasses,omitempty"`

	// WithdrawalGracePeriod is how long the consumer has, once this offer is
	// deleted, to take back what it runs here by unpeering. Meanwhile no new
	// ShadowPod of the consumer's is admitted and nothing of its is touched.
	// When it runs out, this cluster deletes the consumer's ShadowPods and
	// their pods itself, then its identity and tenant namespace, and the
	// offer goes: a consumer that vanished cannot hold the offer for ever.
	// A Go duration ("10m", "1h30m"); defaults to 10m.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	WithdrawalGracePeriod *metav1.Duration `json:"withdrawalGracePeriod,omitempty"`

	// Suspend stops the controller from recomputing or publishing the offer;
	// the last published offer stays in place.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// DefaultWithdrawalGracePeriod is spec.withdrawalGracePeriod when unset.
const DefaultWithdrawalGracePeriod = 10 * time.Minute

// WithdrawalGrace is spec.withdrawalGracePeriod, or its default.
func (o *ResourceOffer) WithdrawalGrace() time.Duration {
	if o.Spec.WithdrawalGracePeriod == nil {
		return DefaultWithdrawalGracePeriod
	}
	return o.Spec.WithdrawalGracePeriod.Duration
}

// PodSecurityLevel names a Pod Security Standard a provider holds offloaded
// pods to.
type PodSecurityLevel string

// The levels a ResourceOffer may ask for; privileged is not one of them, as a
// consumer must never get more than the baseline on a provider.
const (
	PodSecurityBaseline   PodSecurityLevel = "baseline"
	PodSecurityRestricted PodSecurityLevel = "restricted"
)

// EffectivePodSecurityLevel is the offer's level, baseline when unset (an
// object written before the field existed, or a fake client without the
// schema's default).
func (in *ResourceOffer) EffectivePodSecurityLevel() PodSecurityLevel {
	if in == nil || in.Spec.PodSecurityLevel != PodSecurityRestricted {
		return PodSecurityBaseline
	}
	return PodSecurityRestricted
}

// ResourceOfferStatus is what is actually being offered right now.
type ResourceOfferStatus struct {
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

	// Offered is the amount of each resource currently offered: the limits
	// verbatim, or the computed share of free allocatable.
	// +optional
	Offered corev1.ResourceList `json:"offered,omitempty"`

	// OfferedDisplay is Offered written the way people read it (57.6Gi,
	// 3.5), for kubectl get's columns. Read Offered for the exact amounts.
	// +optional
	OfferedDisplay map[corev1.ResourceName]string `json:"offeredDisplay,omitempty"`

	// IdentitySecretName is the Secret, in the tenant namespace on the
	// provider side, holding the credentials issued to the consumer.
	// +optional
	IdentitySecretName string `json:"identitySecretName,omitempty"`

	// TenantNamespace is the provider-side namespace dedicated to the
	// consumer, where its offloaded workloads and credentials live.
	// +optional
	TenantNamespace string `json:"tenantNamespace,omitempty"`
}

// ResourceOffer is the amount of compute a provider cluster lends to one
// consumer cluster. The consumer turns it into the capacity of a virtual node.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:categories=liqo
// +kubebuilder:printcolumn:name="Cluster ID",type=string,JSONPath=`.spec.clusterId`
// +kubebuilder:printcolumn:name="CPU",type=string,JSONPath=`.status.offeredDisplay.cpu`
// +kubebuilder:printcolumn:name="Memory",type=string,JSONPath=`.status.offeredDisplay.memory`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type ResourceOffer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired offer.
	// +required
	Spec ResourceOfferSpec `json:"spec"`

	// Status is the offer in effect.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ResourceOfferStatus `json:"status,omitempty"`
}

// GetConditions returns the summary conditions; together with SetConditions
// it lets fluxcd/pkg/runtime/conditions helpers manage them.
func (in *ResourceOffer) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions replaces the summary conditions.
func (in *ResourceOffer) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}

// HasFixedLimits reports whether the offer is a fixed amount rather than a
// percentage of free allocatable.
func (in *ResourceOffer) HasFixedLimits() bool {
	return in.Spec.Resources != nil && len(in.Spec.Resources.Limits) > 0
}

// EffectiveSharingPercentage returns the percentage of free allocatable to
// offer, applying DefaultSharingPercentage when unset. It returns 0 when the
// offer has fixed limits, because then no percentage applies.
func (in *ResourceOffer) EffectiveSharingPercentage() int32 {
	if in.HasFixedLimits() {
		return 0
	}
	if in.Spec.SharingPercentage == nil {
		return DefaultSharingPercentage
	}
	return *in.Spec.SharingPercentage
}

// ResourceOfferList is a list of ResourceOffers.
// +kubebuilder:object:root=true
type ResourceOfferList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the ResourceOffers.
	Items []ResourceOffer `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ResourceOffer{}, &ResourceOfferList{})
}
