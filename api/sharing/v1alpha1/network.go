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

// The network contract of a peering. Each side's manager publishes what its
// peer's gateway needs to know (never a private key) in a ConfigMap of the
// consumer's tenant namespace on the provider: the provider writes its own
// with its local client, the consumer writes its own through its tenant
// identity, whose Role already allows ConfigMaps there. Each side reads the
// other's ConfigMap and runs one gateway for the peering.
const (
	// ProviderNetworkConfigMapName holds the provider's gateway parameters for the consumer.
	ProviderNetworkConfigMapName = "liqo-network-provider"
	// ConsumerNetworkConfigMapName holds the consumer's gateway parameters for the provider.
	ConsumerNetworkConfigMapName = "liqo-network-consumer"

	// NetworkClusterIDKey is the publishing cluster's ID.
	NetworkClusterIDKey = "clusterID"
	// NetworkPublicKeyKey is the publisher's WireGuard public key (base64, 32 bytes).
	NetworkPublicKeyKey = "publicKey"
	// NetworkEndpointKey is the publisher's gateway UDP address, host:port.
	NetworkEndpointKey = "endpoint"
	// NetworkPodCIDRKey is the publisher's pod CIDR, as it uses it.
	NetworkPodCIDRKey = "podCIDR"
	// NetworkExternalCIDRKey is the publisher's external CIDR; optional.
	NetworkExternalCIDRKey = "externalCIDR"
	// NetworkRemappedPeerPodCIDRKey is where the publisher's pods reach the
	// reader's pod CIDR: the reader's own CIDR unless the publisher remapped
	// it. The reader writes it into what it reflects (EndpointSlices) so that
	// the publisher's pods are given addresses they can reach. Empty until the
	// publisher has read the reader's parameters.
	NetworkRemappedPeerPodCIDRKey = "remappedPeerPodCIDR"
)
