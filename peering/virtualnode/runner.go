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

package virtualnode

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	vknode "github.com/virtual-kubelet/virtual-kubelet/node"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
)

// Options tune a Runner.
type Options struct {
	// ProbeInterval is how often the provider's API server is checked.
	ProbeInterval time.Duration
	// FailureThreshold consecutive failed probes turn the node NotReady; one
	// success heals it. Several, because one slow answer is not an outage.
	FailureThreshold int
	// LeaseDurationSeconds of the node lease in kube-node-lease.
	LeaseDurationSeconds int32
	// PodWorkers is the number of pods handled in parallel.
	PodWorkers int
	// API, when set, serves the node's containerLogs and exec: a pod handler
	// that is also a ContainerAPI is registered there while the node runs.
	API *APIServer
	// Shared and SharedStop are ignored: virtual-kubelet's pod controller
	// only needs listers of ConfigMaps, Secrets and Services to resolve the
	// downward API, which Spillway skips, so no cache of them is kept at all.
	// Kept for callers that still set them; they can go.
	Shared     informers.SharedInformerFactory
	SharedStop <-chan struct{}
	// LocalPods, when set, is the manager's informer of every local pod,
	// started and synced before any node starts: virtual-kubelet then works
	// from a view of it filtered to the node instead of an informer of the
	// node's pods, so the manager caches each pod once (issue 17, lever 6).
	// Nil gives each node an informer of its own.
	LocalPods toolscache.SharedIndexInformer
	// Go starts the runner's long-lived goroutines under a kind (the
	// peering runtime counts them); nil starts them uncounted.
	Go func(kind string, f func())
}

// Kinds of the runner's goroutines, as Options.Go receives them.
const (
	WorkerNodeController = "node-controller"
	WorkerNodeProbe      = "node-probe"
)

// DefaultOptions match the kubelet's defaults closely enough that the node
// lifecycle controller treats a virtual node like any other.
var DefaultOptions = Options{ProbeInterval: 10 * time.Second, FailureThreshold: 3, LeaseDurationSeconds: 40, PodWorkers: 10}

// Probe checks the provider; nil means healthy.
type Probe func(context.Context) error

// Runner keeps one virtual node alive. Start it once per peering; Update it when
// the offer changes; Stop it to stop heartbeating (the node object stays).
type Runner struct {
	local  kubernetes.Interface
	opts   Options
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	spec     Spec
	probe    Probe
	health   Health
	failures int
	notify   func(*corev1.Node)
}

// Start registers the node (or adopts an existing one) and keeps it alive
// until Stop. The first probe runs before registration so a node never
// appears Ready for a provider that does not answer. ctx bounds the
// registration; runCtx bounds the runner's life (Stop ends it sooner).
func Start(ctx, runCtx context.Context, local kubernetes.Interface, spec Spec, probe Probe, pods PodHandler, opts Options) (*Runner, error) {
	r := &Runner{local: local, opts: opts, spec: spec, probe: probe, done: make(chan struct{})}
	r.runProbe(ctx)
	if err := r.syncMetadata(ctx); err != nil {
		return nil, err
	}
	leases := local.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	nc, err := vknode.NewNodeController((*provider)(r), NodeFor(spec, r.Health()), local.CoreV1().Nodes(),
		vknode.WithNodeEnableLeaseV1(leases, opts.LeaseDurationSeconds),
		vknode.WithNodeStatusUpdateInterval(opts.ProbeInterval))
	if err != nil {
		return nil, fmt.Errorf("virtual node %s: %w", spec.Name, err)
	}
	// The runner outlives the reconcile that started it (ctx) and ends with
	// the peering runtime (runCtx).
	runCtx, cancel := context.WithCancel(runCtx)
	r.cancel = cancel
	spawn := opts.Go
	if spawn == nil {
		spawn = func(_ string, f func()) { go f() }
	}
	spawn(WorkerNodeController, func() {
		defer close(r.done)
		if err := nc.Run(runCtx); err != nil && runCtx.Err() == nil {
			ctrl.Log.WithName("virtualnode").Error(err, "node controller stopped", "node", spec.Name)
		}
	})
	spawn(WorkerNodeProbe, func() { r.probeLoop(runCtx) })
	select {
	case <-nc.Ready():
		if pods == nil {
			return r, nil
		}
		workers := opts.PodWorkers
		if workers <= 0 {
			workers = DefaultOptions.PodWorkers
		}
		if err := runPods(runCtx, local, spec.Name, pods, workers, opts.LocalPods); err != nil {
			r.Stop()
			return nil, err
		}
		if api, ok := pods.(ContainerAPI); ok && opts.API != nil {
			opts.API.Register(spec.Name, api)
		}
		return r, nil
	case <-r.done:
		return nil, fmt.Errorf("virtual node %s: node controller exited before registering the node", spec.Name)
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
}

// Stop ends heartbeating and probing; it does not delete the node.
func (r *Runner) Stop() {
	if r.opts.API != nil {
		r.mu.Lock()
		name := r.spec.Name
		r.mu.Unlock()
		r.opts.API.Unregister(name)
	}
	r.cancel()
	<-r.done
}

// Health returns the last probe result.
func (r *Runner) Health() Health {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.health
}

// Update changes what the node advertises, and the probe (new credentials).
func (r *Runner) Update(ctx context.Context, spec Spec, probe Probe) error {
	r.mu.Lock()
	changed := !equality.Semantic.DeepEqual(spec, r.spec)
	r.spec, r.probe = spec, probe
	r.mu.Unlock()
	if !changed {
		return nil
	}
	if err := r.syncMetadata(ctx); err != nil {
		return err
	}
	r.push()
	return nil
}

// syncMetadata sets labels and the taint: the node controller only writes status.
func (r *Runner) syncMetadata(ctx context.Context) error {
	r.mu.Lock()
	spec := r.spec
	r.mu.Unlock()
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"labels": DesiredLabels(spec)},
	})
	if err != nil {
		return err
	}
	_, err = r.local.CoreV1().Nodes().Patch(ctx, spec.Name, types.StrategicMergePatchType, patch, metaPatchOptions)
	if err != nil && !isNotFound(err) {
		return fmt.Errorf("labelling virtual node %s: %w", spec.Name, err)
	}
	return nil
}

func (r *Runner) probeLoop(ctx context.Context) {
	t := time.NewTicker(r.opts.ProbeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if r.runProbe(ctx) {
				r.push()
			}
		}
	}
}

// runProbe checks the provider and reports whether Ready flipped.
func (r *Runner) runProbe(ctx context.Context) bool {
	r.mu.Lock()
	probe := r.probe
	r.mu.Unlock()
	pctx, cancel := context.WithTimeout(ctx, r.opts.ProbeInterval)
	err := probe(pctx)
	cancel()
	r.mu.Lock()
	defer r.mu.Unlock()
	before := r.health
	next := nextHealth(before, &r.failures, err, r.opts.FailureThreshold)
	r.health = next
	return next.Ready != before.Ready || next.Message != before.Message
}

// nextHealth applies the failure threshold: a Ready node stays Ready until
// threshold consecutive failures; a node not yet Ready (never reached, or
// already down) stays down; the first success heals it.
func nextHealth(prev Health, failures *int, err error, threshold int) Health {
	if err == nil {
		*failures = 0
		return Health{Ready: true}
	}
	*failures++
	if prev.Ready && *failures < threshold {
		return prev
	}
	return Health{Ready: false, Message: fmt.Sprintf("the provider's API server failed %d consecutive checks: %v", *failures, err)}
}

func (r *Runner) push() {
	r.mu.Lock()
	notify, node := r.notify, NodeFor(r.spec, r.health)
	r.mu.Unlock()
	if notify != nil {
		notify(node)
	}
}

// provider adapts Runner to virtual-kubelet's NodeProvider. Ping reports the
// virtual kubelet's own liveness, never the provider's: a failed ping stops all
// status updates, and we want the node to say NotReady, not to go silent.
type provider Runner

func (p *provider) Ping(ctx context.Context) error { return ctx.Err() }

func (p *provider) NotifyNodeStatus(_ context.Context, cb func(*corev1.Node)) {
	p.mu.Lock()
	p.notify = cb
	p.mu.Unlock()
}
