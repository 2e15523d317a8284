package network

import (
	"net/netip"
	"sync"
)

// Registry records, per remote cluster, where that cluster's pod CIDR appears
// locally. IPAM fills it; reflectors read it through MapRemoteIP. Safe for
// concurrent use.
type Registry struct {
	mu       sync.RWMutex
	mappings map[string]Mapping
}

// DefaultRegistry is the registry MapRemoteIP reads and that an IPAM built
// with a nil registry fills.
var DefaultRegistry = NewRegistry()

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

// Delete forgets remoteClusterID's mapping; its IPs map to themselves again.
func (r *Registry) Delete(remoteClusterID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.mappings, remoteClusterID)
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

// MapRemoteIP returns the address local pods use to reach ip, an address in
// the pod network of remoteClusterID, as recorded in DefaultRegistry: the
// identity when that cluster's pod CIDR is not remapped. Reflectors call it
// for pod IPs and EndpointSlice addresses.
func MapRemoteIP(remoteClusterID string, ip string) string {
	return DefaultRegistry.MapRemoteIP(remoteClusterID, ip)
}
