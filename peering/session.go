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

package peering

import (
	"context"
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/peering/virtualnode"
	podreflector "github.com/spillway-dev/spillway/reflectors/pod"
	"github.com/spillway-dev/spillway/reflectors/reflection"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// Peer is what the reconciler knows of an established peering.
type Peer struct {
	// Name is the ForeignCluster's name, the session's key.
	Name            string
	ClusterID       string
	ClusterName     string
	TenantNamespace string
	// Node is what the virtual node advertises; Address and Port are the
	// Runtime's own.
	Node virtualnode.Spec
	// Draining runs the session only to hand back the pods still on the
	// virtual node: the peer is not (re)registered for new offloading.
	Draining bool
}

// remoteScheme is what the consumer writes on a provider.
var remoteScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	return s
}()

// pendingRetry is how often pods waiting for their namespace are retried.
const pendingRetry = 3 * time.Second

// orphanSweep is how often ShadowPods whose local pod vanished are collected.
const orphanSweep = 10 * time.Second

// Session is the live side of one peering: a client for the provider and,
// once the peering is established, the runner of its virtual node with the
// pod handler, twin watchers and reflection set under it. It lives across
// reconciles; credentials with a new fingerprint replace the client in place,
// so a rotation never recreates the node.
type Session struct {
	name string
	rt   *Runtime

	mu          sync.Mutex
	fingerprint string
	provider    kubernetes.Interface
	// config is what every client of the session is built from; its
	// transport sends token's current value.
	config     *rest.Config
	token      *bearerToken
	clusterID  string
	runner     *virtualnode.Runner
	twins      *podreflector.TwinWatcher
	cancel     context.CancelFunc
	reflection *reflection.Set
	// workers are the pod side's loops, waited for when the session stops.
	workers sync.WaitGroup
	// tenant is the consumer's tenant namespace on the provider, known once
	// the peering is ensured.
	tenant string
	// stopped is set by stop, after which ensure starts nothing: Stop takes
	// the session out of the Runtime's map, so a node an Ensure already
	// holding it started would run, heartbeat and stay registered with
	// nothing left to stop it.
	stopped bool
}

// workerStopGrace bounds how long stopping a session waits for its loops,
// which return at their next check of the context.
const workerStopGrace = 10 * time.Second

// connect applies credentials to the session: nothing when unchanged, a token
// swap when only the token changed, new clients (and restarted workers)
// otherwise.
func (s *Session) connect(cfg *rest.Config, fingerprint string) (kubernetes.Interface, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.provider != nil && s.fingerprint == fingerprint:
		return s.provider, nil
	case s.provider != nil && sameEndpoint(s.config, cfg):
		s.token.set(cfg.BearerToken)
		s.fingerprint = fingerprint
		return s.provider, nil
	}
	token := &bearerToken{}
	config := sessionConfig(cfg, token)
	cs, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	if s.runner != nil {
		// Workers hold clients of the old server: the next Ensure restarts
		// them (and re-adopts the node) with the new ones.
		s.stopLocked()
	}
	s.fingerprint, s.provider, s.config, s.token = fingerprint, cs, config, token
	return cs, nil
}

// ensured returns the provider's client and the tenant namespace once the
// peering has been ensured.
func (s *Session) ensured() (kubernetes.Interface, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.provider, s.tenant, s.provider != nil && s.tenant != ""
}

func (s *Session) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runner != nil
}

// ensure starts the node's runner and its workers on first success, else
// updates the node; runCtx is the Runtime's, every goroutine derives from it.
func (s *Session) ensure(ctx, runCtx context.Context, p Peer) (virtualnode.Health, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return virtualnode.Health{}, errors.New("peering " + s.name + ": its session was stopped while this reconcile ran; the next one connects anew")
	}
	o := s.rt.opts
	p.Node.Address, p.Node.Port = o.NodeAddress, o.NodePort
	probe := readyzProbe(s.provider)
	if s.runner == nil {
		workCtx, cancel := context.WithCancel(runCtx)
		handler, err := s.startPods(workCtx, p)
		if err != nil {
			cancel()
			s.stopPods()
			return virtualnode.Health{}, err
		}
		s.cancel = cancel
		nodeOpts := o.NodeOptions
		nodeOpts.Shared, nodeOpts.SharedStop = s.rt.informers, runCtx.Done()
		nodeOpts.Go = s.rt.metrics.Go
		runner, err := virtualnode.Start(ctx, workCtx, o.Local, p.Node, probe, handler, nodeOpts)
		if err != nil {
			s.stopPods()
			return virtualnode.Health{}, err
		}
		s.runner, s.clusterID = runner, p.ClusterID
		s.rt.metrics.sessions.Inc()
	} else if err := s.runner.Update(ctx, p.Node, probe); err != nil {
		return virtualnode.Health{}, err
	}
	s.tenant = p.TenantNamespace
	if o.Peers != nil && !p.Draining {
		o.Peers.Set(remote.Peer{ClusterID: p.ClusterID, ClusterName: p.ClusterName, NodeName: p.Node.Name,
			TenantNamespace: p.TenantNamespace, Config: s.config, Client: s.provider})
	}
	return s.runner.Health(), nil
}

// startPods builds the pod side of the peering's virtual kubelet and starts
// its loops and the reflection set under ctx.
func (s *Session) startPods(ctx context.Context, p Peer) (*podreflector.Handler, error) {
	o := s.rt.opts
	remoteClient, err := client.New(s.config, client.Options{Scheme: remoteScheme})
	if err != nil {
		return nil, err
	}
	shadows, err := metadata.NewForConfig(s.config)
	if err != nil {
		return nil, err
	}
	s.twins = &podreflector.TwinWatcher{Provider: s.provider, Shadows: shadows, LocalClusterID: o.LocalClusterID}
	h := &podreflector.Handler{
		Remote: remoteClient, Twins: s.twins, LocalClusterID: o.LocalClusterID, RemoteID: p.ClusterID, NodeIP: o.NodeAddress,
		RemoteConfig: s.config, ClusterName: p.ClusterName, APIServerURL: o.APIServerURL, LocalPods: o.LocalClient, Network: o.Network,
		Namespaces: podreflector.OffloadingMapper(o.LocalClient, p.ClusterName, p.ClusterID),
	}
	if o.NodeOptions.LocalPods != nil {
		// The informer behind LocalClient's pods: the resync reads its pods
		// in place (see podreflector.Handler.PodIndex).
		h.PodIndex = o.NodeOptions.LocalPods.GetIndexer()
	}
	s.goWorker(WorkerRetryPending, func() { h.RetryPending(ctx, pendingRetry) })
	s.goWorker(WorkerOrphanSweep, func() { h.CollectOrphans(ctx, o.LocalClient, o.Local.CoreV1(), orphanSweep) })
	if o.Reflection != nil {
		// The rest of each offloaded namespace follows its pods.
		set, err := o.Reflection.Start(ctx, reflection.Peer{LocalClusterID: o.LocalClusterID, RemoteClusterID: p.ClusterID,
			RemoteClusterName: p.ClusterName, NodeName: p.Node.Name, Remote: remoteClient, Provider: s.provider,
			Namespaces: reflection.NamespaceMapper(h.Namespaces)})
		if err != nil {
			return nil, err
		}
		s.reflection = set
	}
	return h, nil
}

// goWorker runs one of the pod side's loops, counted and waited for.
func (s *Session) goWorker(kind string, f func()) {
	s.workers.Add(1)
	s.rt.metrics.Go(kind, func() {
		defer s.workers.Done()
		f()
	})
}

// stopPods ends the pod side: the retry loop and the provider watches.
func (s *Session) stopPods() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	if !waitGroupWithin(&s.workers, workerStopGrace) {
		ctrl.Log.WithName("peering").Info("a worker of the session is still running after its context ended; it is counted in spillway_peering_workers",
			"foreignCluster", s.name, "grace", workerStopGrace)
	}
	if s.twins != nil {
		s.twins.Stop()
		s.twins = nil
	}
	s.reflection.Stop()
	s.reflection = nil
}

// stop ends heartbeating and every worker of the session.
func (s *Session) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopped = true
	s.stopLocked()
	if s.clusterID != "" {
		s.rt.Withdraw(s.clusterID)
	}
}

func (s *Session) stopLocked() {
	if s.runner != nil {
		s.runner.Stop()
		s.runner = nil
		s.rt.metrics.sessions.Dec()
		s.rt.metrics.stopped.Inc()
	}
	s.stopPods()
}

// waitGroupWithin waits for wg, at most d; it reports whether wg finished.
func waitGroupWithin(wg *sync.WaitGroup, d time.Duration) bool {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// readyzProbe checks the provider's API server with the peering's identity.
func readyzProbe(cs kubernetes.Interface) virtualnode.Probe {
	return func(ctx context.Context) error {
		return cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
	}
}
