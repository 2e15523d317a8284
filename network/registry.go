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

import (
	"net/netip"
	"sync"
)

// Registry records, per remote cluster, where that cluster's pod CIDR appears
// locally. IPAM fills it; reflectors read it through a Mode that carries it (one
// registry per manager, made in main and passed in). Safe for
// concurrent use.
type Registry struct {
	mu       sync.RWMutex
	mappings map[string]Mapping
	// views are how each peer sees this cluster's pod CIDR (Remote: ours,
	// Local: the peer's address for it).
	views map[string]Mapping
}

// NewRegistry returns an empty registry: every IP maps to itself.
func NewRegistry() *Registry {
	return &Registry{mappings: map[string]Mapping{}}
}

// Set records m, replacing any mapping of the same remote cluster.
func (r *Registry) Set(m Mapping) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.mappings[m.RemoteClusterID] = m
}

// Delete forgets remoteClusterID's mapping and its peer view; its IPs, and
// ours as its pods reach them, map to themselves again.
func (r *Registry) Delete(remoteClusterID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.mappings, remoteClusterID)
	delete(r.views, remoteClusterID)
}

// Get returns remoteClusterID's mapping, if any.
func (r *Registry) Get(remoteClusterID string) (Mapping, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.mappings[remoteClusterID]
	return m, ok
}

// MapRemoteIP returns the address local pods use to reach ip, an address in
// remoteClusterID's pod network. It returns ip unchanged when the cluster has
// no remap, ip is outside the remote pod CIDR, or ip does not parse (so that
// reflecting a malformed status never fails).
func (r *Registry) MapRemoteIP(remoteClusterID, ip string) string {
	m, ok := r.Get(remoteClusterID)
	if !ok || !m.Remapped() {
		return ip
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap()
	if addr.Zone() != "" || !m.Remote.Contains(addr) {
		return ip
	}
	return translate(addr, m.Remote, m.Local).String()
}

// SetPeerView records that pods of remoteClusterID reach this cluster's pod
// CIDR local at seenAs (the remote side's remap of our range). Until the
// fabric reports one, every local IP is reached at its own address.
func (r *Registry) SetPeerView(remoteClusterID string, local, seenAs netip.Prefix) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.views == nil {
		r.views = map[string]Mapping{}
	}
	r.views[remoteClusterID] = Mapping{RemoteClusterID: remoteClusterID, Remote: local, Local: seenAs}
}

// MapLocalIP returns the address pods of remoteClusterID use to reach ip, an
// address of this cluster's pod network: the identity unless a peer view
// remaps it, or ip does not parse.
func (r *Registry) MapLocalIP(remoteClusterID, ip string) string {
	r.mu.RLock()
	v, ok := r.views[remoteClusterID]
	r.mu.RUnlock()
	if !ok || !v.Remapped() {
		return ip
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ip
	}
	addr = addr.Unmap()
	if addr.Zone() != "" || !v.Remote.Contains(addr) {
		return ip
	}
	return translate(addr, v.Remote, v.Local).String()
}

// ReflectLocalIP decides what a reflector writes in remoteClusterID's copy for
// ip, an address of this cluster: the peer's view in internal mode, ip itself
// in external mode, nothing (ok false) when IPs are not reflected.
func (m Mode) ReflectLocalIP(remoteClusterID, ip string) (reflected string, ok bool) {
	if m.Registry == nil {
		return m.reflect(remoteClusterID, ip, identity)
	}
	return m.reflect(remoteClusterID, ip, m.Registry.MapLocalIP)
}
