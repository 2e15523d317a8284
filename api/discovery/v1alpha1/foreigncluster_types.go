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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PeeringEnabled says whether Spillway should establish a peering in one
// direction. Liqo spells the values Auto, Yes and No, and so do we.
// +kubebuilder:validation:Enum=Auto;Yes;No
type PeeringEnabled string

const (
	// PeeringEnabledAuto leaves the decision to the controller's defaults.
	PeeringEnabledAuto PeeringEnabled = "Auto"
	// PeeringEnabledYes asks for the peering to be established and kept.
	PeeringEnabledYes PeeringEnabled = "Yes"
	// PeeringEnabledNo asks for the peering to be torn down, or never made.
	PeeringEnabledNo PeeringEnabled = "No"
)

// NetworkingEnabled says whether the network fabric between the two clusters
// should be set up. It has no Auto value: the choice must be explicit.
// +kubebuilder:validation:Enum=Yes;No
type NetworkingEnabled string

const (
	// NetworkingEnabledYes asks for cross-cluster pod networking.
	NetworkingEnabledYes NetworkingEnabled = "Yes"
	// NetworkingEnabledNo skips networking, e.g. when another tool already
	// connects the clusters or only the control plane is shared.
	NetworkingEnabledNo NetworkingEnabled = "No"
)

// PeeringType says how the two control planes reach each other.
// +kubebuilder:validation:Enum=OutOfBand;InBand
type PeeringType string

const (
	// PeeringTypeOutOfBand means each cluster's API server is reachable from
	// the other directly, without going through the cluster network fabric.
	PeeringTypeOutOfBand PeeringType = "OutOfBand"
	// PeeringTypeInBand means the API servers are reached through the network
	// fabric. Liqo's value, kept in the enum so its manifests get a clear
	// error: Spillway does not implement it and refuses it at admission.
	PeeringTypeInBand PeeringType = "InBand"
)

// ClusterIdentity names a remote cluster in a way that survives renames of the
// ForeignCluster object.
type ClusterIdentity struct {
	// ClusterID is the stable, unique identifier of the remote cluster. Every
	// other object about this peer (ResourceOffers, virtual nodes, tenant
	// namespaces) is keyed by it, so it cannot change once set.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="spec.clusterIdentity.clusterID is immutable: delete and recreate the ForeignCluster to point it at another cluster"
	ClusterID string `json:"clusterID"`

	// ClusterName is a human-friendly name of the remote cluster, used in
	// generated object names and messages only.
	// +optional
	ClusterName string `json:"clusterName,omitempty"`
}

// SecretReference points at the Secret that holds the credentials Spillway
// uses to reach the remote cluster's API server. In a GitOps setup the Secret
// is produced by an External Secrets ExternalSecret, so no credential ever
// lives in Git.
type SecretReference struct {
	// Name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`

	// Namespace of the Secret. ForeignCluster is cluster-scoped, so the
	// namespace has to be spelled out; it defaults to Spillway's own namespace.
	// +optional
	// +kubebuilder:default=liqo
	// +kubebuilder:validation:MaxLength=63
	Namespace string `json:"namespace,omitempty"`
}

// ForeignClusterSpec is the desired relationship with one remote cluster.
// Three Liqo fields are accepted only with values Spillway honours, and refused
// with a message saying what to do otherwise: a value that is stored but
// ignored would tell the user something that is not happening.
type ForeignClusterSpec struct {
	// ClusterIdentity identifies the remote cluster.
	// +required
	ClusterIdentity ClusterIdentity `json:"clusterIdentity"`

	// OutgoingPeeringEnabled controls whether this cluster consumes resources
	// of the remote cluster (offloads workloads to it).
	// +optional
	// +kubebuilder:default=Auto
	OutgoingPeeringEnabled PeeringEnabled `json:"outgoingPeeringEnabled,omitempty"`

	// IncomingPeeringEnabled is Liqo's switch for the remote cluster consuming
	// this one. In Spillway that peering exists exactly when this cluster's git
	// holds a ResourceOffer naming the remote cluster, and status reports it as
	// IncomingPeering. Auto and No are accepted so Liqo manifests apply
	// unchanged; Yes is refused, because this object cannot grant it.
	// +optional
	// +kubebuilder:default=Auto
	// +kubebuilder:validation:XValidation:rule="self != 'Yes'",message="spec.incomingPeeringEnabled Yes is not supported: a ForeignCluster only governs this cluster consuming the peer; the peer consumes this cluster when this cluster's git holds a ResourceOffer for it (spec.clusterID). Leave the field out (Auto) or set No"
	IncomingPeeringEnabled PeeringEnabled `json:"incomingPeeringEnabled,omitempty"`

	// PeeringType selects how the control planes reach each other. Only
	// OutOfBand (the API server reached directly) is implemented; InBand is
	// refused at admission.
	// +optional
	// +kubebuilder:default=OutOfBand
	// +kubebuilder:validation:XValidation:rule="self != 'InBand'",message="spec.peeringType InBand (API servers reached through the network fabric) is not implemented: only OutOfBand is. Make the provider's API server reachable from this cluster, then leave the field out or set OutOfBand"
	PeeringType PeeringType `json:"peeringType,omitempty"`

	// NetworkingEnabled controls whether cross-cluster pod networking is set up.
	// +optional
	// +kubebuilder:default=Yes
	NetworkingEnabled NetworkingEnabled `json:"networkingEnabled,omitempty"`

	// InsecureSkipTLSVerify is Liqo's switch to skip verifying the remote API
	// server's certificate. Spillway always verifies it, so true is refused;
	// false is accepted so Liqo manifests apply unchanged.
	// +optional
	// +kubebuilder:validation:XValidation:rule="!self",message="spec.insecureSkipTLSVerify true is not supported: Spillway always verifies the provider's API server certificate. Put the provider's CA in the credentials Secret (key ca.crt, or the kubeconfig's certificate-authority-data) and remove the field"
	InsecureSkipTLSVerify *bool `json:"insecureSkipTLSVerify,omitempty"`

	// ForeignAuthURL is the address of the remote authentication service.
	// Kept so that Liqo manifests apply unchanged; Spillway reads credentials
	// from CredentialsSecretRef instead.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == '' || isURL(self)",message="spec.foreignAuthUrl must be an absolute URL such as https://203.0.113.10:443"
	ForeignAuthURL string `json:"foreignAuthUrl,omitempty"`

	// ForeignProxyURL is the address of a proxy in front of the remote API
	// server. Kept for compatibility with Liqo manifests.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == '' || isURL(self)",message="spec.foreignProxyUrl must be an absolute URL such as http://proxy.example:8118"
	ForeignProxyURL string `json:"foreignProxyUrl,omitempty"`

	// CredentialsSecretRef names the Secret with the credentials for the
	// remote API server. The Secret holds either the key "kubeconfig", or the
	// three keys "server", "ca.crt" and "token". Spillway only reads it; the
	// Secret's lifecycle belongs to whoever produces it (typically External
	// Secrets), which is what makes peering declarative.
	// +optional
	CredentialsSecretRef *SecretReference `json:"credentialsSecretRef,omitempty"`

	// Suspend tells the controller to stop reconciling this ForeignCluster,
	// leaving the peering as it is. Useful during maintenance of the peer.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// Interval is how often the controller probes the remote API server to
	// keep the peering conditions fresh. The CEL rule skips strings the
	// pattern already rejects, so a typo yields one error, not two.
	// +optional
	// +kubebuilder:default="10s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern="^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$"
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ms|s|m|h))+$') || duration(self) >= duration('1s')",message="spec.interval must be at least 1s so the peer's API server is not flooded with probes"
	Interval *metav1.Duration `json:"interval,omitempty"`
}

// PeeringConditionType names one aspect of a peering that is tracked on its
// own, so that one failing part does not hide the state of the others.
// +kubebuilder:validation:Enum=OutgoingPeering;IncomingPeering;NetworkStatus;AuthenticationStatus;ProcessForeignClusterStatus
type PeeringConditionType string

const (
	// OutgoingPeeringCondition tracks this cluster consuming the peer.
	OutgoingPeeringCondition PeeringConditionType = "OutgoingPeering"
	// IncomingPeeringCondition tracks the peer consuming this cluster.
	IncomingPeeringCondition PeeringConditionType = "IncomingPeering"
	// NetworkStatusCondition tracks the network fabric between the clusters.
	NetworkStatusCondition PeeringConditionType = "NetworkStatus"
	// AuthenticationStatusCondition tracks whether the credentials work.
	AuthenticationStatusCondition PeeringConditionType = "AuthenticationStatus"
	// ProcessForeignClusterStatusCondition reports problems processing the
	// ForeignCluster object itself (bad spec, missing Secret, ...).
	ProcessForeignClusterStatusCondition PeeringConditionType = "ProcessForeignClusterStatus"
)

// PeeringConditionStatus is the lifecycle state of one peering aspect. It is
// richer than True/False because a peering goes through intermediate steps
// that users want to see in kubectl output.
// +kubebuilder:validation:Enum=None;Pending;Established;Disconnecting;Denied;Error
type PeeringConditionStatus string

const (
	// PeeringConditionStatusNone means nothing has been attempted.
	PeeringConditionStatusNone PeeringConditionStatus = "None"
	// PeeringConditionStatusPending means the aspect is being set up.
	PeeringConditionStatusPending PeeringConditionStatus = "Pending"
	// PeeringConditionStatusEstablished means the aspect is up and working.
	PeeringConditionStatusEstablished PeeringConditionStatus = "Established"
	// PeeringConditionStatusDisconnecting means the aspect is being torn down.
	PeeringConditionStatusDisconnecting PeeringConditionStatus = "Disconnecting"
	// PeeringConditionStatusDenied means the peer refused the request.
	PeeringConditionStatusDenied PeeringConditionStatus = "Denied"
	// PeeringConditionStatusError means setting the aspect up failed.
	PeeringConditionStatusError PeeringConditionStatus = "Error"
)

// PeeringCondition is the observed state of one peering aspect.
type PeeringCondition struct {
	// Type is the aspect this condition describes.
	// +required
	Type PeeringConditionType `json:"type"`

	// Status is the aspect's lifecycle state.
	// +required
	// +kubebuilder:default=None
	Status PeeringConditionStatus `json:"status"`

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

// TenantNamespaceNames records the namespaces that hold the per-peer objects
// (credentials, offers, shadow pods) on each side of the peering.
type TenantNamespaceNames struct {
	// Local is the tenant namespace in this cluster.
	// +optional
	Local string `json:"local,omitempty"`

	// Remote is the tenant namespace in the remote cluster.
	// +optional
	Remote string `json:"remote,omitempty"`
}

// ForeignClusterStatus is the observed state of the peering.
type ForeignClusterStatus struct {
	// ObservedGeneration is the spec generation the status reflects. It starts
	// at -1 so that kstatus treats a never-reconciled object as in progress.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions holds the Flux-style summary conditions (Ready, Reconciling,
	// Stalled) that GitOps tooling waits on.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// ReconcileRequestStatus records the last handled
	// reconcile.fluxcd.io/requestedAt annotation, so "flux reconcile"-style
	// manual triggers can be acknowledged.
	meta.ReconcileRequestStatus `json:",inline"`

	// PeeringConditions holds one entry per peering aspect.
	// +optional
	// +listType=map
	// +listMapKey=type
	PeeringConditions []PeeringCondition `json:"peeringConditions,omitempty"`

	// TenantNamespace records the tenant namespaces of this peering.
	// +optional
	TenantNamespace TenantNamespaceNames `json:"tenantNamespace,omitempty"`

	// VirtualNodeName is the name of the Node that represents the remote
	// cluster here, when an outgoing peering is established.
	// +optional
	VirtualNodeName string `json:"virtualNodeName,omitempty"`
}

// ForeignCluster describes one remote cluster and the desired peering with it.
// It is cluster-scoped because a peering concerns the whole cluster.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=fc,categories=liqo
// +kubebuilder:printcolumn:name="Type",type=string,JSONPath=`.spec.peeringType`
// +kubebuilder:printcolumn:name="Outgoing Peering",type=string,JSONPath=`.status.peeringConditions[?(@.type=="OutgoingPeering")].status`
// +kubebuilder:printcolumn:name="Incoming Peering",type=string,JSONPath=`.status.peeringConditions[?(@.type=="IncomingPeering")].status`
// +kubebuilder:printcolumn:name="Networking",type=string,JSONPath=`.status.peeringConditions[?(@.type=="NetworkStatus")].status`
// +kubebuilder:printcolumn:name="Authentication",type=string,JSONPath=`.status.peeringConditions[?(@.type=="AuthenticationStatus")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,priority=1
type ForeignCluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired peering.
	// +required
	Spec ForeignClusterSpec `json:"spec"`

	// Status is the observed peering.
	// +optional
	// +kubebuilder:default={"observedGeneration":-1}
	Status ForeignClusterStatus `json:"status,omitempty"`
}

// GetConditions returns the summary conditions; together with SetConditions
// it lets fluxcd/pkg/runtime/conditions helpers manage them.
func (in *ForeignCluster) GetConditions() []metav1.Condition {
	return in.Status.Conditions
}

// SetConditions replaces the summary conditions.
func (in *ForeignCluster) SetConditions(conditions []metav1.Condition) {
	in.Status.Conditions = conditions
}

// GetRequeueAfter returns how long to wait before probing the peer again,
// falling back to DefaultInterval when the field was never defaulted (e.g. on
// an object built in Go rather than read from the API server).
func (in *ForeignCluster) GetRequeueAfter() time.Duration {
	if in.Spec.Interval == nil || in.Spec.Interval.Duration <= 0 {
		return DefaultInterval
	}
	return in.Spec.Interval.Duration
}

// GetPeeringCondition returns the condition for the given aspect, or nil
// when the controller has not reported on it yet.
func (in *ForeignCluster) GetPeeringCondition(t PeeringConditionType) *PeeringCondition {
	for i := range in.Status.PeeringConditions {
		if in.Status.PeeringConditions[i].Type == t {
			return &in.Status.PeeringConditions[i]
		}
	}
	return nil
}

// PeeringStatus returns the state of the given aspect, None when unknown.
func (in *ForeignCluster) PeeringStatus(t PeeringConditionType) PeeringConditionStatus {
	if c := in.GetPeeringCondition(t); c != nil {
		return c.Status
	}
	return PeeringConditionStatusNone
}

// SetPeeringCondition records the state of one aspect. LastTransitionTime is
// only moved when the status actually changes, so that the timestamp keeps
// meaning "since when" rather than "last reconciled".
func (in *ForeignCluster) SetPeeringCondition(t PeeringConditionType, status PeeringConditionStatus, reason, message string, now metav1.Time) {
	if c := in.GetPeeringCondition(t); c != nil {
		if c.Status != status {
			c.LastTransitionTime = now
		}
		c.Status, c.Reason, c.Message = status, reason, message
		return
	}
	in.Status.PeeringConditions = append(in.Status.PeeringConditions, PeeringCondition{
		Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: now,
	})
}

// CredentialsNamespace returns the namespace of the credentials Secret,
// applying the schema default for objects that skipped API-server defaulting.
func (in *ForeignCluster) CredentialsNamespace() string {
	if in.Spec.CredentialsSecretRef == nil || in.Spec.CredentialsSecretRef.Namespace == "" {
		return DefaultCredentialsNamespace
	}
	return in.Spec.CredentialsSecretRef.Namespace
}

// ForeignClusterList is a list of ForeignClusters.
// +kubebuilder:object:root=true
type ForeignClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the ForeignClusters.
	Items []ForeignCluster `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ForeignCluster{}, &ForeignClusterList{})
}
