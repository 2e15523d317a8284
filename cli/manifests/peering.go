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

package manifests

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// The secret store both sides of a peering reach, and the External Secrets
// API versions the fleet uses. External Secrets v0.16 serves ExternalSecret
// at v1 and v1beta1, v1.x at v1 only; PushSecret is v1alpha1 in both.
const (
	SecretStoreKind          = "ClusterSecretStore"
	SecretStoreName          = "fleet-secrets"
	ExternalSecretAPIVersion = "external-secrets.io/v1"
	PushSecretAPIVersion     = "external-secrets.io/v1alpha1"
)

// maxIdentityKeyLen keeps keys within a DNS-1123 label, the strictest rule
// among the stores: the Kubernetes provider uses the key as a Secret name,
// GCP and Azure allow neither "/" nor ".".
const maxIdentityKeyLen = 63

// IdentityKey is where a provider's PushSecret stores the credentials it
// issued to a consumer, and where the consumer's ExternalSecret reads them:
// spillway-<provider>-identity-<consumer>, a DNS-1123 label valid as a key of
// every store. Too long a key is cut and ends with a hash of the whole, so
// two pairs of clusters never share one.
func IdentityKey(provider, consumer string) string {
	key := "spillway-" + sharingv1alpha1.TenantName(provider, "") + "-identity-" + sharingv1alpha1.TenantName(consumer, "")
	if len(key) <= maxIdentityKeyLen {
		return key
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "-" + hex.EncodeToString(sum[:])[:10]
	return strings.TrimRight(key[:maxIdentityKeyLen-len(suffix)], "-") + suffix
}

// Peering is what `spillway peer` writes into the consumer's folder.
type Peering struct {
	// Consumer is the cluster whose folder is written.
	Consumer string
	// Provider is the ForeignCluster's name, the peer to consume.
	Provider          string
	ClusterID         string
	ClusterName       string
	CredentialsSecret string
	// CredentialsNamespace defaults to liqo.
	CredentialsNamespace string
}

// ForeignClusterFile and ExternalSecretFile are the files peer writes.
func ForeignClusterFile(provider string) string { return "foreigncluster-" + provider + ".yaml" }

// ExternalSecretFile is the file holding the peer's credentials ExternalSecret.
func ExternalSecretFile(provider string) string { return "externalsecret-" + provider + ".yaml" }

func (p Peering) credentialsNamespace() string {
	if p.CredentialsNamespace == "" {
		return discoveryv1alpha1.DefaultCredentialsNamespace
	}
	return p.CredentialsNamespace
}

// ForeignCluster asks for an outgoing peering with the provider.
func (p Peering) ForeignCluster() *discoveryv1alpha1.ForeignCluster {
	name := p.ClusterName
	if name == "" {
		name = p.Provider
	}
	return &discoveryv1alpha1.ForeignCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: discoveryv1alpha1.GroupVersion.String(), Kind: "ForeignCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Provider},
		Spec: discoveryv1alpha1.ForeignClusterSpec{
			ClusterIdentity:        discoveryv1alpha1.ClusterIdentity{ClusterID: p.ClusterID, ClusterName: name},
			OutgoingPeeringEnabled: discoveryv1alpha1.PeeringEnabledYes,
			IncomingPeeringEnabled: discoveryv1alpha1.PeeringEnabledNo,
			PeeringType:            discoveryv1alpha1.PeeringTypeOutOfBand,
			CredentialsSecretRef:   &discoveryv1alpha1.SecretReference{Name: p.CredentialsSecret, Namespace: p.credentialsNamespace()},
		},
	}
}

// Files are the ForeignCluster and the ExternalSecret that fills the Secret
// it reads.
func (p Peering) Files() []File {
	// 1m: until the provider has pushed the identity, External Secrets finds
	// no key and (deletionPolicy Delete) waits a whole interval before looking
	// again, so the interval is how long a new peering can wait for its
	// credentials.
	// dataFrom.extract, not one spec.data entry per property: the properties
	// the PushSecret pushed come back as the Secret's keys, and only extract
	// hears the Kubernetes provider's "no such secret" once the provider
	// withdraws them, so that deletionPolicy Delete drops the local copy.
	es := newUnstructured(ExternalSecretAPIVersion, "ExternalSecret", p.credentialsNamespace(), p.CredentialsSecret, map[string]any{
		"refreshInterval": "1m",
		"secretStoreRef":  map[string]any{"kind": SecretStoreKind, "name": SecretStoreName},
		"target": map[string]any{
			"name":           p.CredentialsSecret,
			"creationPolicy": "Owner",
			"deletionPolicy": "Delete",
		},
		"dataFrom": []any{map[string]any{"extract": map[string]any{"key": IdentityKey(p.Provider, p.Consumer)}}},
	})
	return []File{
		{Name: ForeignClusterFile(p.Provider), Documents: []Document{{
			Comment: fmt.Sprintf(`Written by "spillway peer %s": %s consumes %s, which appears here as a
virtual node. %s never offers its own resources to %s (incoming peering off).`, p.Provider, p.Consumer, p.Provider, p.Consumer, p.Provider),
			Object: p.ForeignCluster(),
		}}},
		{Name: ExternalSecretFile(p.Provider), Documents: []Document{{
			Comment: fmt.Sprintf(`Fetches the credentials %s issued to %s (pushed to the store by %s's
PushSecret) into the Secret the ForeignCluster %s reads. Never commit them.`, p.Provider, p.Consumer, p.Provider, p.Provider),
			Object: es,
		}}},
	}
}
