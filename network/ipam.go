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
	"errors"
	"fmt"
	"net/netip"
	"sync"
)

// DefaultRemapPools is where remapped CIDRs come from when IPAMConfig.Pools is
// empty: a private range clear of common pod and service CIDRs (10.244/16,
// 10.96/12, 10.42/15, 10.128/14, 172.16/12, 192.168/16).
var DefaultRemapPools = []netip.Prefix{netip.MustParsePrefix("10.208.0.0/12")}

// ErrPoolExhausted is wrapped by Allocate when no pool has room for a remap.
var ErrPoolExhausted = errors.New("remap pools exhausted")

// IPAMConfig is the local cluster's address space as IPAM must respect it.
type IPAMConfig struct {
	// LocalPodCIDR is this cluster's pod CIDR; required.
	LocalPodCIDR netip.Prefix
	// ExternalCIDR is the local range for addresses outside the pod network
	// (Liqo's external CIDR); optional. Remote pods are never mapped into it.
	ExternalCIDR netip.Prefix
	// Reserved are subnets in use locally (service CIDR, node network, other
	// peerings' remaps when a gateway computes its own); optional.
	Reserved []netip.Prefix
	// Pools are where remapped CIDRs are carved from; DefaultRemapPools when empty.
	Pools []netip.Prefix
}

// Mapping says where a remote cluster's pod CIDR appears to local pods.
type Mapping struct {
	RemoteClusterID string
	// Remote is the pod CIDR as the remote cluster itself uses it.
	Remote netip.Prefix
	// Local is where local pods reach those pods: Remote itself when nothing
	// local overlaps it, otherwise a same-sized CIDR from a pool.
	Local netip.Prefix
}

// Remapped reports whether local pods use other addresses than the remote's own.
func (m Mapping) Remapped() bool { return m.Local != m.Remote }

// IPAM hands each remote cluster a local view of its pod CIDR and records it
// in a Registry so that MapRemoteIP answers the same. Safe for concurrent use.
type IPAM struct {
	mu       sync.Mutex
	cfg      IPAMConfig
	registry *Registry
	remotes  map[string]Mapping
}

// NewIPAM checks cfg and returns an IPAM filling registry (a private one when nil).
func NewIPAM(cfg IPAMConfig, registry *Registry) (*IPAM, error) {
	if len(cfg.Pools) == 0 {
		cfg.Pools = DefaultRemapPools
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if registry == nil {
		registry = NewRegistry()
	}
	return &IPAM{cfg: cfg, registry: registry, remotes: map[string]Mapping{}}, nil
}

func (c IPAMConfig) validate() error {
	if !c.LocalPodCIDR.IsValid() {
		return errors.New("IPAM: the local pod CIDR is required: pass the cluster's pod CIDR (e.g. 10.244.0.0/16)")
	}
	// A pool may overlap local subnets: allocation skips them.
	for _, pool := range c.Pools {
		if !pool.IsValid() {
			return errors.New("IPAM: a remap pool is not a valid CIDR: check --remap-pools")
		}
	}
	return nil
}

// Allocate returns the mapping for remoteClusterID's pod CIDR: the identity
// when it clashes with nothing local, else the first free same-sized CIDR of
// a pool. Calling it again with the same CIDR returns the same mapping.
func (a *IPAM) Allocate(remoteClusterID string, remotePodCIDR netip.Prefix) (Mapping, error) {
	if remoteClusterID == "" {
		return Mapping{}, errors.New("IPAM: the remote cluster ID is empty: pass the peer's cluster ID")
	}
	if !remotePodCIDR.IsValid() {
		return Mapping{}, fmt.Errorf("IPAM: the pod CIDR of remote cluster %q is not a valid CIDR", remoteClusterID)
	}
	remotePodCIDR = remotePodCIDR.Masked()
	a.mu.Lock()
	defer a.mu.Unlock()
	if m, ok := a.remotes[remoteClusterID]; ok && m.Remote == remotePodCIDR {
		return m, nil
	}
	used := a.usedExcept(remoteClusterID)
	m := Mapping{RemoteClusterID: remoteClusterID, Remote: remotePodCIDR, Local: remotePodCIDR}
	if _, clash := overlapsAny(remotePodCIDR, used); clash {
		local, err := a.fromPools(remotePodCIDR, append(used, remotePodCIDR))
		if err != nil {
			return Mapping{}, fmt.Errorf("IPAM: pod CIDR %s of remote cluster %q overlaps a local subnet and %w", remotePodCIDR, remoteClusterID, err)
		}
		m.Local = local
	}
	a.remotes[remoteClusterID] = m
	a.registry.Set(m)
	return m, nil
}

// AllocatePreferring is Allocate, but keeps preferred (an earlier run's
// remap, recorded by the caller) when it is still a free same-sized CIDR of a
// pool, so that a restarted manager does not move a peer's addresses.
func (a *IPAM) AllocatePreferring(remoteClusterID string, remotePodCIDR, preferred netip.Prefix) (Mapping, error) {
	if !preferred.IsValid() || !remotePodCIDR.IsValid() || preferred.Bits() != remotePodCIDR.Bits() {
		return a.Allocate(remoteClusterID, remotePodCIDR)
	}
	a.mu.Lock()
	used := a.usedExcept(remoteClusterID)
	_, clashes := overlapsAny(remotePodCIDR.Masked(), used)
	_, taken := overlapsAny(preferred.Masked(), append(used, remotePodCIDR.Masked()))
	if clashes && !taken && a.inPool(preferred) {
		m := Mapping{RemoteClusterID: remoteClusterID, Remote: remotePodCIDR.Masked(), Local: preferred.Masked()}
		a.remotes[remoteClusterID] = m
		a.registry.Set(m)
		a.mu.Unlock()
		return m, nil
	}
	a.mu.Unlock()
	return a.Allocate(remoteClusterID, remotePodCIDR)
}

func (a *IPAM) inPool(p netip.Prefix) bool {
	for _, pool := range a.cfg.Pools {
		if pool.Bits() <= p.Bits() && pool.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

// Release forgets remoteClusterID's mapping, freeing its remapped CIDR.
func (a *IPAM) Release(remoteClusterID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.remotes, remoteClusterID)
	a.registry.Delete(remoteClusterID)
}

// usedExcept lists every local range a remote CIDR must not appear in.
func (a *IPAM) usedExcept(remoteClusterID string) []netip.Prefix {
	used := append([]netip.Prefix{a.cfg.LocalPodCIDR}, a.cfg.Reserved...)
	if a.cfg.ExternalCIDR.IsValid() {
		used = append(used, a.cfg.ExternalCIDR)
	}
	for id, m := range a.remotes {
		if id != remoteClusterID {
			used = append(used, m.Local)
		}
	}
	return used
}

// fromPools finds the first prefix of size like within a pool that overlaps
// nothing in used.
func (a *IPAM) fromPools(like netip.Prefix, used []netip.Prefix) (netip.Prefix, error) {
	for _, pool := range a.cfg.Pools {
		if pool.Addr().Is4() != like.Addr().Is4() || pool.Bits() > like.Bits() {
			continue
		}
		if p, ok := firstFree(pool, like.Bits(), used); ok {
			return p, nil
		}
	}
	return netip.Prefix{}, fmt.Errorf("no remap pool (%s) has a free /%d: %w; add a larger pool (--remap-pools) or release an unused peering",
		joinPrefixes(a.cfg.Pools), like.Bits(), ErrPoolExhausted)
}

// firstFree walks pool in blocks of /bits, jumping past any used prefix a
// block overlaps, so the walk is bounded by len(used) and not by pool size.
func firstFree(pool netip.Prefix, bits int, used []netip.Prefix) (netip.Prefix, bool) {
	cand := netip.PrefixFrom(pool.Masked().Addr(), bits)
	for pool.Contains(cand.Addr()) {
		q, clash := overlapsAny(cand, used)
		if !clash {
			return cand, true
		}
		end := lastAddr(cand)
		if qe := lastAddr(q); end.Less(qe) {
			end = qe
		}
		next := end.Next()
		if !next.IsValid() {
			return netip.Prefix{}, false
		}
		cand = netip.PrefixFrom(next, bits)
	}
	return netip.Prefix{}, false
}
