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

package fabric

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/netip"
	"strconv"
	"time"

	"github.com/spillway-dev/spillway/network"
)

// Role is this cluster's side of a peering; it decides which end of the
// tunnel subnet each gateway takes, so both agree without talking.
type Role int

const (
	// Consumer offloads to the peer (it holds the ForeignCluster).
	Consumer Role = iota
	// Provider runs the peer's workloads (it holds the ResourceOffer).
	Provider
)

func (r Role) String() string {
	if r == Provider {
		return "provider"
	}
	return "consumer"
}

// tunnelSpace holds every peering's point-to-point /30: link-local, so it
// never clashes with pod, service or node addresses.
var tunnelSpace = netip.MustParsePrefix("169.254.64.0/18")

// TunnelAddresses returns the consumer's and the provider's tunnel address
// (each a /30 of the same subnet) for the peering of consumerID with
// providerID. Both managers compute the same pair from the two IDs; different
// peerings of a host get different subnets unless their hashes collide (1 in
// 4096), which only matters for the probe of the two colliding peerings.
func TunnelAddresses(consumerID, providerID string) (consumer, provider netip.Prefix) {
	sum := sha256.Sum256([]byte(consumerID + "/" + providerID))
	block := binary.BigEndian.Uint32(sum[:4]) % (1 << (30 - tunnelSpace.Bits()))
	base := tunnelSpace.Addr().As4()
	n := binary.BigEndian.Uint32(base[:]) + block*4
	var a [4]byte
	binary.BigEndian.PutUint32(a[:], n+1)
	consumer = netip.PrefixFrom(netip.AddrFrom4(a), 30)
	binary.BigEndian.PutUint32(a[:], n+2)
	provider = netip.PrefixFrom(netip.AddrFrom4(a), 30)
	return consumer, provider
}

// InterfaceName names the WireGuard device of the gateway from localID to
// remoteID: "spw" and 12 hex digits, within Linux's 15 bytes, distinct per
// direction so that two managers on one host (the lab) never share a device
// or a userspace UAPI socket.
func InterfaceName(localID, remoteID string) string {
	l := sha256.Sum256([]byte(localID))
	r := sha256.Sum256([]byte(remoteID))
	return "spw" + hex.EncodeToString(l[:3]) + hex.EncodeToString(r[:3])
}

// GatewayPlan is everything one peering's gateway is started with.
type GatewayPlan struct {
	Role           Role
	Interface      string
	ListenPort     int
	PrivateKeyFile string
	StatusFile     string
	Local          Params
	Remote         Params
	Mapping        network.Mapping
	Implementation string
	MTU            int
	ProbePort      int
	ProbeInterval  time.Duration
	ConnectTimeout time.Duration
}

// TunnelAddresses are this end's and the peer's tunnel addresses.
func (p GatewayPlan) TunnelAddresses() (local, peer netip.Prefix) {
	if p.Role == Provider {
		consumer, provider := TunnelAddresses(p.Remote.ClusterID, p.Local.ClusterID)
		return provider, consumer
	}
	return TunnelAddresses(p.Local.ClusterID, p.Remote.ClusterID)
}

// Args are the spillway-gateway flags of p. The remap is always passed
// explicitly: the manager's IPAM sees every peering, a gateway only its own.
func (p GatewayPlan) Args() []string {
	local, peer := p.TunnelAddresses()
	args := []string{
		"--cluster-id=" + p.Local.ClusterID, "--remote-cluster-id=" + p.Remote.ClusterID,
		"--interface-name=" + p.Interface, "--listen-port=" + strconv.Itoa(p.ListenPort),
		"--private-key-file=" + p.PrivateKeyFile, "--status-file=" + p.StatusFile,
		"--peer-public-key=" + p.Remote.PublicKey.String(), "--peer-endpoint=" + p.Remote.Endpoint,
		"--tunnel-address=" + local.String(), "--peer-tunnel-address=" + peer.Addr().String(),
		"--local-pod-cidr=" + p.Local.PodCIDR.String(), "--remote-pod-cidr=" + p.Mapping.Remote.String(),
		"--remapped-remote-cidr=" + p.Mapping.Local.String(),
		// The manager reads the status file and exports the metrics itself.
		"--metrics-bind-address=0",
	}
	if p.Local.ExternalCIDR.IsValid() {
		args = append(args, "--external-cidr="+p.Local.ExternalCIDR.String())
	}
	if p.Implementation != "" {
		args = append(args, "--wireguard-implementation="+p.Implementation)
	}
	if p.MTU != 0 {
		args = append(args, "--mtu="+strconv.Itoa(p.MTU))
	}
	if p.ProbePort != 0 {
		args = append(args, "--probe-port="+strconv.Itoa(p.ProbePort))
	}
	if p.ProbeInterval != 0 {
		args = append(args, "--probe-interval="+p.ProbeInterval.String())
	}
	if p.ConnectTimeout != 0 {
		args = append(args, "--connect-timeout="+p.ConnectTimeout.String())
	}
	return args
}
