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

package reflection

import (
	"context"
	"fmt"
	"time"

	"github.com/spillway-dev/spillway/network"
)

// DefaultWorkers is each type's worker count unless a flag says otherwise.
const DefaultWorkers = 3

// DefaultResync is how often copies are realigned without a local change.
const DefaultResync = 5 * time.Minute

// Config is the reflection every peering gets: which kinds, how many workers
// each (the --<resource>-reflection-workers flags; 0 disables a kind).
type Config struct {
	Local   Local
	Kinds   []Kind
	Workers map[string]int
	Resync  time.Duration
	Network network.Mode
	// Others are reflectors that are not a Kind, built per peering (events,
	// which flow from the provider; ServiceAccount tokens, made on request).
	Others []func(Peer) Starter
}

// Starter is a reflector of one peering that is not a Kind.
type Starter interface {
	Start(ctx context.Context) error
	Stop()
}

// Set is the reflectors of one peering.
type Set struct {
	reflectors      []Starter
	remoteClusterID string
}

// Start runs one Reflector per enabled kind towards peer.
func (c *Config) Start(ctx context.Context, peer Peer) (*Set, error) {
	peer.Network = c.Network
	s := &Set{remoteClusterID: peer.RemoteClusterID}
	for _, k := range c.Kinds {
		workers, ok := c.Workers[k.Name]
		if !ok {
			workers = DefaultWorkers
		}
		if workers <= 0 {
			continue
		}
		r := New(k, peer, c.Local, Options{Workers: workers, Resync: c.Resync})
		if err := r.Start(ctx); err != nil {
			s.Stop()
			return nil, fmt.Errorf("starting reflection to %s: %w", peer.RemoteClusterName, err)
		}
		s.reflectors = append(s.reflectors, r)
	}
	for _, build := range c.Others {
		r := build(peer)
		if err := r.Start(ctx); err != nil {
			s.Stop()
			return nil, fmt.Errorf("starting reflection to %s: %w", peer.RemoteClusterName, err)
		}
		s.reflectors = append(s.reflectors, r)
	}
	return s, nil
}

// Stop stops every reflector of the peering; copies stay on the provider.
func (s *Set) Stop() {
	if s == nil {
		return
	}
	for _, r := range s.reflectors {
		r.Stop()
	}
	forgetPeer(s.remoteClusterID)
}
