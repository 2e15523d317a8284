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

package network

import "fmt"

// Mode is how a peering's pod networks are joined, after the Liqo settings
// networking.internal and reflectIPs.
type Mode struct {
	// Internal is Liqo's networking.internal: a Spillway gateway links the
	// clusters and remaps overlapping pod CIDRs. False means the pod networks
	// already route to each other (external network), so no gateway runs and
	// IPs are reflected as they are.
	Internal bool
	// ReflectIPs is Liqo's reflectIPs: false reflects no IPs at all, for
	// setups where pods only meet through ingress or a service mesh.
	ReflectIPs bool
	// Registry holds the remaps the fabric chose, read in internal mode;
	// nil maps every address to itself (no remap known).
	Registry *Registry
}

// DefaultMode is Liqo's default: a gateway, remapped IPs reflected.
var DefaultMode = Mode{Internal: true, ReflectIPs: true}

// NeedsGateway reports whether a gateway must run for a peering in this mode.
func (m Mode) NeedsGateway() bool { return m.Internal }

// ReflectIP decides what a reflector writes for ip, an address in
// remoteClusterID's pod network: the remapped address in internal mode, ip
// itself in external mode, and nothing (ok false) when IPs are not reflected.
func (m Mode) ReflectIP(remoteClusterID, ip string) (reflected string, ok bool) {
	if m.Registry == nil {
		return m.reflect(remoteClusterID, ip, identity)
	}
	return m.reflect(remoteClusterID, ip, m.Registry.MapRemoteIP)
}

// identity is the mapping of a Mode without a registry.
func identity(_, ip string) string { return ip }

// reflect applies the mode to ip, with mapIP as the internal-mode mapping.
func (m Mode) reflect(remoteClusterID, ip string, mapIP func(remoteClusterID, ip string) string) (string, bool) {
	switch {
	case !m.ReflectIPs || ip == "":
		return "", false
	case !m.Internal:
		return ip, true
	default:
		return mapIP(remoteClusterID, ip), true
	}
}

// String names the mode in logs and status.
func (m Mode) String() string {
	return fmt.Sprintf("networking.internal=%t,reflectIPs=%t", m.Internal, m.ReflectIPs)
}
