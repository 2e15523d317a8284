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

// Package remote is the registry of live connections to providers. The
// ForeignCluster controller fills it when a peering is established and empties
// it when the peering ends; the offloading controller and the virtual kubelet's
// pod reflector read it, so one identity per peering is used for everything.
package remote

import (
	"sort"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Peer is one established outgoing peering.
type Peer struct {
	ClusterID   string
	ClusterName string
	// NodeName is the virtual node standing for the provider.
	NodeName string
	// TenantNamespace is this consumer's namespace on the provider.
	TenantNamespace string
	// Config and Client act with the consumer's least-privilege identity.
	Config *rest.Config
	Client kubernetes.Interface
}

// Registry holds the established peers by cluster ID. The zero value is ready.
type Registry struct {
	mu    sync.RWMutex
	peers map[string]Peer
}

// Set adds or replaces a peer (a credential rotation replaces its client).
func (r *Registry) Set(p Peer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.peers == nil {
		r.peers = map[string]Peer{}
	}
	r.peers[p.ClusterID] = p
}

// Delete forgets a peer.
func (r *Registry) Delete(clusterID string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.peers, clusterID)
}

// Get returns a peer by cluster ID.
func (r *Registry) Get(clusterID string) (Peer, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	p, ok := r.peers[clusterID]
	return p, ok
}

// ByNode returns the peer a virtual node stands for.
func (r *Registry) ByNode(nodeName string) (Peer, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, p := range r.peers {
		if p.NodeName == nodeName {
			return p, true
		}
	}
	return Peer{}, false
}

// List returns the peers sorted by cluster ID.
func (r *Registry) List() []Peer {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Peer, 0, len(r.peers))
	for _, p := range r.peers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ClusterID < out[j].ClusterID })
	return out
}
