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
)

// Labels that identify what Spillway creates for a peer. The keys and values
// are Liqo's, so tools and selectors written for Liqo keep working.
const (
	// TypeLabel marks objects with the role they play in a peering; selectors
	// such as "kubectl get nodes -l liqo.io/type=virtual-node" rely on it.
	TypeLabel = "liqo.io/type"

	// TypeVirtualNode is the TypeLabel value carried by the Node that stands
	// in for a remote cluster.
	TypeVirtualNode = "virtual-node"

	// RemoteClusterIDLabel ties an object (virtual node, tenant namespace,
	// offer, credentials Secret) to the cluster ID of the peer it belongs to,
	// so that everything about one peer can be listed or cleaned up together.
	RemoteClusterIDLabel = "liqo.io/remote-cluster-id"
)

// Keys a credentials Secret (spec.credentialsSecretRef) may carry. Either
// CredentialsKubeconfigKey alone, or the three split keys together.
const (
	// CredentialsKubeconfigKey holds a complete kubeconfig for the peer.
	CredentialsKubeconfigKey = "kubeconfig"
	// CredentialsServerKey holds the peer API server URL.
	CredentialsServerKey = "server"
	// CredentialsCAKey holds the PEM bundle that signs the peer's serving
	// certificate.
	CredentialsCAKey = "ca.crt"
	// CredentialsTokenKey holds a bearer token valid on the peer.
	CredentialsTokenKey = "token"
)

const (
	// DefaultCredentialsNamespace is where the credentials Secret is looked up
	// when spec.credentialsSecretRef.namespace is empty; it matches the schema
	// default and the namespace Liqo installs into.
	DefaultCredentialsNamespace = "liqo"

	// DefaultInterval is the health-probe period used when spec.interval is
	// unset; it matches the schema default.
	DefaultInterval = 10 * time.Second
)

// Summary condition types on ForeignCluster.status.conditions, besides the
// Flux ones (Ready, Reconciling, Stalled) re-exported below.
const (
	// ReadyCondition is true when every enabled peering aspect is established.
	ReadyCondition = meta.ReadyCondition
	// ReconcilingCondition is true while the controller works towards the spec.
	ReconcilingCondition = meta.ReconcilingCondition
	// StalledCondition is true when progress needs a human (e.g. bad spec).
	StalledCondition = meta.StalledCondition
	// CredentialsReadyCondition is true when the credentials Secret exists and
	// holds a usable set of keys.
	CredentialsReadyCondition = "CredentialsReady"
	// APIServerReachableCondition is true when the last probe of the peer's API
	// server succeeded.
	APIServerReachableCondition = "APIServerReachable"
)

// Reasons used on ForeignCluster conditions. They are CamelCase as the
// metav1.Condition contract requires.
const (
	// SuspendedReason explains that reconciliation is paused by spec.suspend.
	SuspendedReason = "Suspended"
	// CredentialsNotFoundReason: the referenced Secret does not exist (yet);
	// with External Secrets this is often transient.
	CredentialsNotFoundReason = "CredentialsNotFound"
	// InvalidCredentialsReason: the Secret lacks the required keys, its
	// content cannot be parsed, or it holds more than a server, a CA and a
	// token (exec, tokenFile, auth-provider, proxy-url, ...), which the
	// manager refuses rather than honours.
	InvalidCredentialsReason = "InvalidCredentials"
	// APIServerUnreachableReason: the peer's API server did not answer.
	APIServerUnreachableReason = "APIServerUnreachable"
	// AuthenticationFailedReason: the peer rejected the credentials.
	AuthenticationFailedReason = "AuthenticationFailed"
	// PeeringEstablishedReason: all enabled aspects are established.
	PeeringEstablishedReason = "PeeringEstablished"
	// PeeringDisabledReason: both directions are disabled by the spec.
	PeeringDisabledReason = "PeeringDisabled"
)
