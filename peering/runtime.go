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

// Package peering is the consumer's peering runtime: one Session per provider,
// owning every goroutine and informer of that peering (the provider clients,
// the virtual node and its pod handler, twin watchers, retry and orphan-sweep
// loops, the reflection set and the remote.Registry entry). The Runtime is a
// manager Runnable: sessions run under its context, so they end with the
// manager (or its leadership), and a peer's session ends when the
// ForeignCluster reconciler asks for it to stop. The reconciler computes and
// writes status; it only asks the Runtime to connect, ensure or stop.
package peering

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/peering/virtualnode"
	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// Options are the Runtime's dependencies, passed in by the manager's main.
type Options struct {
	// Local is a clientset for this cluster, used by the virtual nodes;
	// LocalClient reads through the manager's cache.
	Local       kubernetes.Interface
	LocalClient client.Client
	// LocalClusterID is this cluster's identity.
	LocalClusterID string
	// NodeAddress is the address virtual nodes advertise (the manager's), and
	// NodePort the port of its kubelet API (NodeOptions.API).
	NodeAddress string
	NodePort    int32
	NodeOptions virtualnode.Options
	// APIServerURL is this cluster's API server as offloaded pods reach it;
	// empty when --enable-apiserver-support=false.
	APIServerURL string
	// Reflection copies the rest of each offloaded namespace to every peer;
	// nil reflects only pods.
	Reflection *reflection.Config
	// Peers receives every established peering, for the offloading
	// controller and the pod reflector; nil disables publishing.
	Peers *remote.Registry
	// Network maps provider pod IPs into this cluster (the registry the
	// network fabric fills); nil leaves them unmapped.
	Network *network.Registry
	// Metrics are the runtime's series (NewMetrics, made once per process);
	// nil gives the Runtime series of its own, registered nowhere.
	Metrics *Metrics
	// ForeignClusters, when set, tells the Runtime that a ForeignCluster is
	// gone from the API (the manager's cache informer): its session stops
	// then, even if no reconcile did it (a finalizer removed by hand).
	ForeignClusters crcache.Informers
}

// sweepInterval is how often sessions are checked against the
// ForeignClusters that still exist, behind the informer's delete events.
const sweepInterval = time.Minute

// Runtime keeps the live side of every peering of this consumer. Its methods
// are safe for concurrent use; Connect, Ensure and Stop may be called for the
// same peer any number of times.
type Runtime struct {
	opts    Options
	started chan struct{}
	ctx     context.Context

	mu       sync.Mutex
	sessions map[string]*Session

	// informers serve the cluster-wide kinds every virtual node's pod
	// controller needs, once for all of them.
	informers informers.SharedInformerFactory

	metrics *Metrics
}

// New returns a Runtime; add it to the manager (mgr.Add) so it runs.
func New(opts Options) (*Runtime, error) {
	r := &Runtime{opts: opts, started: make(chan struct{}), sessions: map[string]*Session{}, metrics: opts.Metrics}
	if r.metrics == nil {
		var err error
		if r.metrics, err = NewMetrics(nil); err != nil {
			return nil, err
		}
	}
	if opts.Local != nil {
		r.informers = informers.NewSharedInformerFactoryWithOptions(opts.Local, 0,
			informers.WithTransform(crcache.TransformStripManagedFields()))
	}
	return r, nil
}

// NeedLeaderElection is true: a virtual node heartbeats from one manager only.
func (r *Runtime) NeedLeaderElection() bool { return true }

// Start runs until ctx ends, then stops every session and returns once
// they have stopped: the manager that lost its lease waits for this before
// the next one starts sessions for the same nodes.
func (r *Runtime) Start(ctx context.Context) error {
	r.ctx = ctx
	close(r.started)
	defer r.stopAll()
	if r.opts.ForeignClusters != nil {
		stopWatching, err := r.stopOnDelete(ctx)
		if err != nil {
			return err
		}
		defer stopWatching()
	}
	t := time.NewTicker(sweepInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := r.Sweep(ctx); err != nil && ctx.Err() == nil {
				ctrl.Log.WithName("peering").Error(err, "checking peering sessions against ForeignClusters")
			}
		}
	}
}

func (r *Runtime) stopAll() {
	r.mu.Lock()
	names := make([]string, 0, len(r.sessions))
	for name := range r.sessions {
		names = append(names, name)
	}
	r.mu.Unlock()
	for _, name := range names {
		r.Stop(name)
	}
}

// stopOnDelete stops a session as soon as its ForeignCluster leaves the
// API. The finalizer normally stops it first; this catches the rest.
func (r *Runtime) stopOnDelete(ctx context.Context) (func(), error) {
	inf, err := r.opts.ForeignClusters.GetInformer(ctx, &discoveryv1alpha1.ForeignCluster{})
	if err != nil {
		return nil, fmt.Errorf("watching ForeignClusters for the peering runtime: %w", err)
	}
	handle, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if tomb, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
			obj = tomb.Obj
		}
		if fc, ok := obj.(*discoveryv1alpha1.ForeignCluster); ok {
			r.Stop(fc.Name)
		}
	}})
	if err != nil {
		return nil, err
	}
	return func() { _ = inf.RemoveEventHandler(handle) }, nil
}

// Sweep stops the sessions whose ForeignCluster no longer exists, and
// returns the error of listing them.
func (r *Runtime) Sweep(ctx context.Context) error {
	if r.opts.LocalClient == nil {
		return nil
	}
	fcs := &discoveryv1alpha1.ForeignClusterList{}
	if err := r.opts.LocalClient.List(ctx, fcs); err != nil {
		return err
	}
	r.mu.Lock()
	orphans := orphanSessions(r.sessions, fcs.Items)
	r.mu.Unlock()
	for _, name := range orphans {
		ctrl.Log.WithName("peering").Info("stopping the session of a ForeignCluster that no longer exists", "foreignCluster", name)
		r.Stop(name)
	}
	return nil
}

// orphanSessions are the session names no ForeignCluster carries.
func orphanSessions(sessions map[string]*Session, fcs []discoveryv1alpha1.ForeignCluster) []string {
	exists := make(map[string]bool, len(fcs))
	for i := range fcs {
		exists[fcs[i].Name] = true
	}
	var out []string
	for name := range sessions {
		if !exists[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// errNotRunning: the Runtime is asked for work before the manager started it
// or after it stopped.
var errNotRunning = errors.New("the peering runtime is not running")

// runContext waits for Start and returns the Runtime's context.
func (r *Runtime) runContext(ctx context.Context) (context.Context, error) {
	select {
	case <-r.started:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if r.ctx.Err() != nil {
		return nil, errNotRunning
	}
	return r.ctx, nil
}

// Connect returns the provider's client for a peering's credentials. The
// session is created on first use. New credentials for the same server and
// CA only swap the token every client of the session sends (a rotation
// touches no client, informer, node or pod); a new server or CA rebuilds the
// clients and restarts the session's workers with them, leaving the node and
// the remote pods in place.
func (r *Runtime) Connect(name string, cfg *rest.Config, fingerprint string) (kubernetes.Interface, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.sessions[name]
	if s == nil {
		s = &Session{name: name, rt: r}
		r.sessions[name] = s
	}
	return s.connect(cfg, fingerprint)
}

// Ensure starts the peering's virtual node and everything under it the first
// time, and later keeps the node in line with p; it returns the node's health.
// Connect must have been called for p.Name.
func (r *Runtime) Ensure(ctx context.Context, p Peer) (virtualnode.Health, error) {
	runCtx, err := r.runContext(ctx)
	if err != nil {
		return virtualnode.Health{}, err
	}
	r.mu.Lock()
	s := r.sessions[p.Name]
	r.mu.Unlock()
	if s == nil {
		return virtualnode.Health{}, errors.New("peering " + p.Name + ": Ensure before Connect")
	}
	return s.ensure(ctx, runCtx, p)
}

// Provider returns the client and tenant namespace of a peering the Runtime
// has ensured, while its session lives: what unpeering uses to release what
// this consumer holds on the provider before Stop. ok is false for a peer
// with no session, or one that was never ensured.
func (r *Runtime) Provider(name string) (provider kubernetes.Interface, tenantNamespace string, ok bool) {
	r.mu.Lock()
	s := r.sessions[name]
	r.mu.Unlock()
	if s == nil {
		return nil, "", false
	}
	return s.ensured()
}

// Withdraw removes a peer from the remote.Registry so nothing new is offloaded
// to it, leaving its session running until Stop.
func (r *Runtime) Withdraw(clusterID string) {
	if r.opts.Peers != nil {
		r.opts.Peers.Delete(clusterID)
	}
}

// Stop ends a peer's session and forgets it: heartbeating, pod handling and
// reflection stop; nothing is deleted, locally or on the provider.
func (r *Runtime) Stop(name string) {
	r.mu.Lock()
	s := r.sessions[name]
	delete(r.sessions, name)
	r.mu.Unlock()
	if s != nil {
		s.stop()
	}
}

// Sessions returns how many sessions run workers.
func (r *Runtime) Sessions() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range r.sessions {
		if s.running() {
			n++
		}
	}
	return n
}
