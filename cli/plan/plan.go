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

// Package plan tells what a change to a fleet repository will do once Flux
// applies it: which namespaces are offloaded, withdrawn or moved between
// peers, which offers shrink, and which changes admission will reject. It
// renders both sides' config folders and evaluates them with the same
// policies the controllers run, so a pull request shows what clusters will do.
package plan

import (
	"context"
	"errors"
	"sort"
	"strings"
)

// ChangeKind names what a change does. The values are part of the JSON
// output bots read; never rename one.
type ChangeKind string

const (
	// Offload means a namespace is newly offloaded.
	Offload ChangeKind = "Offload"
	// Unoffload means a namespace stops being offloaded.
	Unoffload ChangeKind = "Unoffload"
	// Move means an offloaded namespace changes peers.
	Move ChangeKind = "Move"
	// SelectorChange means spec.clusterSelector changed but selects the same peers.
	SelectorChange ChangeKind = "SelectorChange"
	// PodStrategyChange means spec.podOffloadingStrategy changed.
	PodStrategyChange ChangeKind = "PodStrategyChange"
	// PlacementViolation means a running pod sits on a node the new placement
	// does not allow (only with a live cluster).
	PlacementViolation ChangeKind = "PlacementViolation"
	// SuspendChange means spec.suspend changed.
	SuspendChange ChangeKind = "SuspendChange"
	// MappingStrategyChange means spec.namespaceMappingStrategy changed; always
	// rejected.
	MappingStrategyChange ChangeKind = "MappingStrategyChange"
	// InvalidOffloading means a NamespaceOffloading admission rejects.
	InvalidOffloading ChangeKind = "InvalidOffloading"
	// NamespaceDeleted means a Namespace leaves git and Flux will prune it.
	NamespaceDeleted ChangeKind = "NamespaceDeleted"

	// OfferAdded means a provider starts offering to a consumer.
	OfferAdded ChangeKind = "OfferAdded"
	// OfferWithdrawn means a provider stops offering to a consumer.
	OfferWithdrawn ChangeKind = "OfferWithdrawn"
	// OfferShrink means an offer gets smaller.
	OfferShrink ChangeKind = "OfferShrink"
	// OfferChange means any other change to an offer.
	OfferChange ChangeKind = "OfferChange"
	// InvalidOffer means a ResourceOffer admission rejects.
	InvalidOffer ChangeKind = "InvalidOffer"

	// PeerAdded means a consumer starts peering with a provider.
	PeerAdded ChangeKind = "PeerAdded"
	// PeerRemoved means a consumer stops peering with a provider.
	PeerRemoved ChangeKind = "PeerRemoved"
	// PeerChange means any other change to a ForeignCluster.
	PeerChange ChangeKind = "PeerChange"
	// InvalidPeer means a ForeignCluster admission rejects.
	InvalidPeer ChangeKind = "InvalidPeer"

	// BuildFailed means a config folder does not build; on the head side Flux
	// cannot apply it, so the change is rejected.
	BuildFailed ChangeKind = "BuildFailed"
)

// Plan is what a change to the fleet will do, cluster by cluster. Its JSON
// form is the stable output of `spillway plan --output json`.
type Plan struct {
	// Clusters lists, by name, the clusters with at least one change.
	Clusters []ClusterPlan `json:"clusters"`
	// Rejected is true when any change would be rejected by admission.
	Rejected bool `json:"rejected"`
}

// ClusterPlan is the changes to one cluster.
type ClusterPlan struct {
	Name    string   `json:"name"`
	Changes []Change `json:"changes"`
}

// Change is one thing a cluster will do, or refuse to do.
type Change struct {
	Kind ChangeKind `json:"kind"`
	// Namespace is the offloaded namespace the change is about, empty for
	// peers and offers.
	Namespace string `json:"namespace"`
	// Message says what happens, and for a rejected change the field and
	// the fix.
	Message string `json:"message"`
	// Rejected is true when admission would refuse the change, so Flux
	// would fail to apply the folder.
	Rejected bool `json:"rejected"`
}

// Options are what a plan may look at besides the two snapshots.
type Options struct {
	// Live is a running cluster whose pods are checked against changed
	// placements; nil skips the check.
	Live *Live
}

// Compute compares two snapshots of the fleet. The error is reserved for
// failures to read what the plan needs; a failing live check is reported in
// the plan instead.
func Compute(ctx context.Context, base, head *Snapshot, opts Options) (*Plan, error) {
	p := &Plan{Clusters: []ClusterPlan{}}
	names := map[string]bool{}
	for n := range base.Clusters {
		names[n] = true
	}
	for n := range head.Clusters {
		names[n] = true
	}
	for _, name := range sortedKeys(names) {
		d := &diff{ctx: ctx, base: base, head: head, opts: opts,
			b: orEmpty(base.Clusters[name], name), h: orEmpty(head.Clusters[name], name)}
		d.run()
		if len(d.changes) == 0 {
			continue
		}
		p.Clusters = append(p.Clusters, ClusterPlan{Name: name, Changes: d.changes})
		for _, c := range d.changes {
			p.Rejected = p.Rejected || c.Rejected
		}
	}
	return p, nil
}

// Count returns how many changes the plan holds, and how many are rejected.
func (p *Plan) Count() (changes, rejected int) {
	for _, c := range p.Clusters {
		for _, ch := range c.Changes {
			changes++
			if ch.Rejected {
				rejected++
			}
		}
	}
	return changes, rejected
}

// errNotInFleet is the identity error of a cluster missing on one side.
var errNotInFleet = errors.New("not in the fleet")

func orEmpty(c *Cluster, name string) *Cluster {
	if c != nil {
		return c
	}
	return &Cluster{Name: name, IdentityErr: errNotInFleet}
}

// diff compares one cluster across the two snapshots.
type diff struct {
	ctx        context.Context
	base, head *Snapshot
	b, h       *Cluster
	opts       Options
	changes    []Change
}

func (d *diff) add(c Change) { d.changes = append(d.changes, c) }

func (d *diff) run() {
	if d.h.BuildErr != nil {
		d.add(Change{Kind: BuildFailed, Rejected: true,
			Message: d.h.BuildErr.Error() + ": Flux cannot apply the folder; fix it until kustomize build succeeds"})
		return
	}
	if d.b.BuildErr != nil {
		d.add(Change{Kind: BuildFailed,
			Message: "the base does not build (" + d.b.BuildErr.Error() + "): changes are listed against an empty folder"})
	}
	d.undecodable()
	d.peerings()
	d.offers()
	d.offloadings()
	d.namespaces()
	// Peers and offers first, then namespaces by name; within one namespace
	// the order of discovery, which puts the cause before its consequences.
	sort.SliceStable(d.changes, func(i, j int) bool {
		a, b := d.changes[i].Namespace, d.changes[j].Namespace
		if (a == "") != (b == "") {
			return a == ""
		}
		return a < b
	})
}

// undecodable reports head objects whose fields do not fit the API, which
// the API server's schema rejects too.
func (d *diff) undecodable() {
	kinds := map[string]ChangeKind{"ForeignCluster": InvalidPeer, "ResourceOffer": InvalidOffer,
		"NamespaceOffloading": InvalidOffloading, "Namespace": InvalidOffloading}
	for _, key := range sortedKeys(d.h.Undecodable) {
		if _, before := d.b.Undecodable[key]; before {
			continue
		}
		kind, _, _ := strings.Cut(key, " ")
		d.add(Change{Kind: kinds[kind], Rejected: true,
			Message: key + " does not match its API schema: " + d.h.Undecodable[key].Error() + ": fix the field's value"})
	}
}
