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
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strings"
)

// The peering contract between a provider and a consumer. The provider's
// ResourceOffer controller creates, for each consumer, a tenant namespace, a
// ServiceAccount limited to it, an offer ConfigMap the consumer reads, and an
// identity Secret that External Secrets carries to the consumer. The consumer's
// ForeignCluster controller reads only what is named here.
const (
	// TenantNamespacePrefix starts the name of a consumer's tenant namespace on the provider.
	TenantNamespacePrefix = "liqo-tenant-"
	// TenantNamespaceLabel marks tenant namespaces (value "true").
	TenantNamespaceLabel = "liqo.io/tenant-namespace"
	// RemoteClusterIDLabel names the consumer a provider-side object belongs to.
	RemoteClusterIDLabel = "liqo.io/remote-cluster-id"
	// OriginClusterIDLabel marks provider-side workloads offloaded by a consumer.
	OriginClusterIDLabel = "liqo.io/origin-cluster-id"

	// ConsumerServiceAccountName is the consumer's identity in its tenant namespace.
	ConsumerServiceAccountName = "liqo-consumer"
	// ConsumerTokenSecretName holds the ServiceAccount token the identity carries.
	ConsumerTokenSecretName = "liqo-consumer-token"
	// ConsumerRoleName is the Role (in the tenant namespace) granted to the consumer.
	ConsumerRoleName = "liqo-consumer"

	// OfferConfigMapName is the ConfigMap in the tenant namespace through which
	// the consumer reads the provider's identity and current offer.
	OfferConfigMapName = "liqo-offer"
	// Offer ConfigMap keys.
	OfferProviderClusterIDKey   = "providerClusterID"
	OfferProviderClusterNameKey = "providerClusterName"
	OfferConsumerClusterIDKey   = "consumerClusterID"
	OfferResourcesKey           = "resources" // JSON corev1.ResourceList
	OfferLabelsKey              = "labels"    // JSON map[string]string
	OfferReadyKey               = "ready"     // "true" when the offer is current

	// IdentitySecretPrefix starts the name of the identity Secret (in the
	// provider's own namespace) that a PushSecret carries to the consumer.
	IdentitySecretPrefix = "liqo-identity-"
	// Identity Secret keys: a kubeconfig whose context namespace is the tenant
	// namespace, and the same facts as separate keys.
	IdentityKubeconfigKey  = "kubeconfig"
	IdentityServerKey      = "server"
	IdentityCAKey          = "ca.crt"
	IdentityTokenKey       = "token"
	IdentityNamespaceKey   = "namespace"
	IdentityClusterIDKey   = "clusterID"
	IdentityClusterNameKey = "clusterName"
)

// IdentityKeys are the keys of the identity Secret, in the order a PushSecret
// pushes them one by one. The kubeconfig comes first: it alone is a whole
// identity, so a consumer that reads the store between two pushes (a new
// peering, a rotated token) never gets a mix it cannot use.
func IdentityKeys() []string {
	return []string{IdentityKubeconfigKey, IdentityServerKey, IdentityCAKey, IdentityTokenKey,
		IdentityNamespaceKey, IdentityClusterIDKey, IdentityClusterNameKey}
}

var unsafeNameChars = regexp.MustCompile(`[^a-z0-9-]+`)

// TenantName is the DNS-safe name used for a consumer in provider-side object
// names: its cluster name when declared, else a hash of its cluster ID.
func TenantName(consumerClusterName, consumerClusterID string) string {
	name := strings.Trim(unsafeNameChars.ReplaceAllString(strings.ToLower(consumerClusterName), "-"), "-")
	if name == "" {
		sum := sha256.Sum256([]byte(consumerClusterID))
		name = hex.EncodeToString(sum[:])[:12]
	}
	if len(name) > 40 {
		name = strings.TrimRight(name[:40], "-")
	}
	return name
}

// TenantNamespaceName is the provider-side namespace of a consumer.
func TenantNamespaceName(consumerClusterName, consumerClusterID string) string {
	return TenantNamespacePrefix + TenantName(consumerClusterName, consumerClusterID)
}

// IdentitySecretName is the provider-side Secret holding a consumer's credentials.
func IdentitySecretName(consumerClusterName, consumerClusterID string) string {
	return IdentitySecretPrefix + TenantName(consumerClusterName, consumerClusterID)
}
