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

package peerbench

import (
	"context"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
)

// readiness timestamps, for each peering, its commit and the first time a
// watch of the consumer shows its virtual node Ready and its ForeignCluster
// Ready. A watch, not a poll: the time is when the API server sent the
// change, within the watcher's scheduling, not up to a poll interval late.
type readiness struct {
	mu                 sync.Mutex
	committed          map[string]time.Time
	nodeReady, fcReady map[string]time.Time
}

func newReadiness() *readiness {
	return &readiness{committed: map[string]time.Time{}, nodeReady: map[string]time.Time{}, fcReady: map[string]time.Time{}}
}

// commit records that the peering's ForeignCluster is about to be created.
func (r *readiness) commit(name string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.committed[name] = at
}

// saw records what the watch showed at time at; only the first Ready of a
// committed peering counts, so an update of a Ready object changes nothing.
func (r *readiness) saw(obj any, at time.Time) {
	var name string
	var seen map[string]time.Time
	switch o := obj.(type) {
	case *corev1.Node:
		var ok bool
		if name, ok = strings.CutPrefix(o.Name, virtualkubeletv1alpha1.VirtualNodeName("")); !ok || !isReady(o) {
			return
		}
		seen = r.nodeReady
	case *discoveryv1alpha1.ForeignCluster:
		if !apimeta.IsStatusConditionTrue(o.Status.Conditions, discoveryv1alpha1.ReadyCondition) {
			return
		}
		name, seen = o.Name, r.fcReady
	default:
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.committed[name]; !ok {
		return
	}
	if _, ok := seen[name]; !ok {
		seen[name] = at
	}
}

func isReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// Latencies of names: commit → virtual node Ready, commit → ForeignCluster
// Ready, and commit → both, for those that got there; pending are the others.
type Latencies struct {
	Node, ForeignCluster, Both []time.Duration
	Pending                    []string
	// Last is when the last of them was both Ready.
	Last time.Time
}

func (r *readiness) latencies(names []string) Latencies {
	r.mu.Lock()
	defer r.mu.Unlock()
	var l Latencies
	for _, name := range names {
		t0, n, f := r.committed[name], r.nodeReady[name], r.fcReady[name]
		if !n.IsZero() {
			l.Node = append(l.Node, n.Sub(t0))
		}
		if !f.IsZero() {
			l.ForeignCluster = append(l.ForeignCluster, f.Sub(t0))
		}
		if n.IsZero() || f.IsZero() {
			l.Pending = append(l.Pending, name)
			continue
		}
		both := n
		if f.After(n) {
			both = f
		}
		l.Both = append(l.Both, both.Sub(t0))
		if both.After(l.Last) {
			l.Last = both
		}
	}
	return l
}

// watch feeds r from informers on the consumer's Nodes and ForeignClusters
// until ctx ends.
func (r *readiness) watch(ctx context.Context, cfg *rest.Config) error {
	c, err := cache.New(cfg, cache.Options{Scheme: framework.Scheme()})
	if err != nil {
		return err
	}
	handler := toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.saw(o, time.Now()) },
		UpdateFunc: func(_, o any) { r.saw(o, time.Now()) },
	}
	for _, o := range []client.Object{&corev1.Node{}, &discoveryv1alpha1.ForeignCluster{}} {
		inf, err := c.GetInformer(ctx, o, cache.BlockUntilSynced(false))
		if err != nil {
			return err
		}
		if _, err := inf.AddEventHandler(handler); err != nil {
			return err
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return ctx.Err()
	}
	return nil
}
