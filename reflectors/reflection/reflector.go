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
	"errors"
	"fmt"
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// Local is the consumer side a Reflector reads: the manager's cache, shared
// by every peering, so N peers cost one informer per type, not N.
type Local interface {
	client.Reader
	GetInformer(ctx context.Context, obj client.Object, opts ...cache.InformerGetOption) (cache.Informer, error)
}

// Options tune a Reflector.
type Options struct {
	// Workers handle objects in parallel; 0 disables the type.
	Workers int
	// Resync realigns every copy this often, repairing edits made on the
	// provider and collecting copies whose original went away unseen.
	Resync time.Duration
}

// Reflector copies one resource type to one peer. Start it once; Stop it when
// the peering ends. Copies are left on the provider when it stops: they go
// with the twin namespace when the namespace is unoffloaded.
type Reflector struct {
	kind  Kind
	peer  Peer
	local Local
	opts  Options

	queue  priorityqueue.PriorityQueue[types.NamespacedName]
	cancel context.CancelFunc
	wg     sync.WaitGroup
	regs   []registration

	mu        sync.Mutex
	reflected map[types.NamespacedName]bool
	// copies serves the reads of the copies on the provider (nil: none).
	copies *copyWatch
}

type registration struct {
	informer cache.Informer
	handle   toolscache.ResourceEventHandlerRegistration
}

// namespacePassPriority ranks the keys a whole namespace queues at once (the
// resync, a twin becoming ready) below every change a watch reports, which
// has the queue's default priority 0. A pass queues every object of the
// namespace; in one queue in order, a change made just after a resync began
// waited behind all of them: at 10,000 EndpointSlices the copies of the
// updates made in that second took up to 0.9 s instead of tens of ms
// (docs/performance.md, target 5, twenty-fourth round). A key already queued
// by a pass is raised when its object changes.
const namespacePassPriority = -1

// New returns a Reflector for kind towards peer.
//
// Its queue is unnamed on purpose: a named queue gets seven workqueue_*
// series (two of them histograms) from controller-runtime's metrics
// provider, which never deletes them, so a queue named after the peer kept
// several KB per reflector for the life of the process after the peering
// was gone. The reflection's own series (item, error and panic counters)
// say how a peer's reflection goes, and go with the peer.
func New(kind Kind, peer Peer, local Local, opts Options) *Reflector {
	return &Reflector{kind: kind, peer: peer, local: local, opts: opts, reflected: map[types.NamespacedName]bool{},
		copies: newCopyWatch(&kind, &peer),
		queue: priorityqueue.New("", func(o *priorityqueue.Opts[types.NamespacedName]) {
			o.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[types.NamespacedName](50*time.Millisecond, 30*time.Second)
		})}
}

// Start watches the local objects and the namespaces' offloading, and runs
// the workers until Stop.
func (r *Reflector) Start(ctx context.Context) error {
	if r.opts.Workers <= 0 {
		return nil
	}
	ctx, r.cancel = context.WithCancel(ctx)
	// Both series exist from the start, so a dashboard sees 0, not nothing.
	errorCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Add(0)
	panicCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Add(0)
	itemCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Add(0)
	objects, err := r.watch(ctx, r.kind.New(), toolscache.ResourceEventHandlerFuncs{
		AddFunc:    r.enqueueObject,
		UpdateFunc: func(_, o any) { r.enqueueObject(o) },
		DeleteFunc: r.enqueueObject,
	})
	if err != nil {
		return err
	}
	// A namespace whose twin becomes ready on this peer has all its objects
	// reflected at once, not at the next resync.
	offloadings, err := r.watch(ctx, &offloadingv1alpha1.NamespaceOffloading{}, toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { r.enqueueNamespaceOf(ctx, o) },
		UpdateFunc: func(_, o any) { r.enqueueNamespaceOf(ctx, o) },
		// Unoffloaded: its copies go with the twin, and so does their watch.
		DeleteFunc: r.forgetNamespaceOf,
	})
	if err != nil {
		return err
	}
	r.regs = []registration{objects, offloadings}
	for range r.opts.Workers {
		r.wg.Go(func() { r.work(ctx) })
	}
	if r.opts.Resync > 0 {
		r.wg.Go(func() { r.resyncLoop(ctx) })
	}
	return nil
}

// Stop removes the watches and waits for the workers.
func (r *Reflector) Stop() {
	if r.cancel == nil {
		return
	}
	for _, reg := range r.regs {
		_ = reg.informer.RemoveEventHandler(reg.handle)
	}
	r.cancel()
	r.queue.ShutDown()
	r.wg.Wait()
	r.copies.stop()
	itemCounter.DeleteLabelValues(r.kind.Name, r.peer.RemoteClusterID)
}

func (r *Reflector) watch(ctx context.Context, obj client.Object, h toolscache.ResourceEventHandler) (registration, error) {
	inf, err := r.local.GetInformer(ctx, obj)
	if err != nil {
		return registration{}, fmt.Errorf("%s reflection: watching %T: %w", r.kind.Name, obj, err)
	}
	handle, err := inf.AddEventHandler(h)
	if err != nil {
		return registration{}, fmt.Errorf("%s reflection: watching %T: %w", r.kind.Name, obj, err)
	}
	return registration{informer: inf, handle: handle}, nil
}

func (r *Reflector) enqueueObject(o any) {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	if obj, ok := o.(client.Object); ok {
		r.queue.Add(types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()})
	}
}

func (r *Reflector) forgetNamespaceOf(o any) {
	if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	if obj, ok := o.(client.Object); ok {
		r.copies.forget(obj.GetNamespace())
	}
}

func (r *Reflector) enqueueNamespaceOf(ctx context.Context, o any) {
	if obj, ok := o.(client.Object); ok {
		if err := r.enqueueNamespace(ctx, obj.GetNamespace()); err != nil {
			r.listFailed(obj.GetNamespace(), err)
		}
	}
}

// listFailed counts and logs a namespace whose objects could not be listed;
// the next event or resync lists it again.
func (r *Reflector) listFailed(namespace string, err error) {
	errorCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Inc()
	ctrl.Log.WithName("reflection").V(1).Info("cannot list a namespace for reflection", "resource", r.kind.Name, "namespace", namespace, "error", err.Error())
}

// enqueueNamespace queues every local object of the namespace and every copy
// in its twin, so that copies whose original is gone are collected.
func (r *Reflector) enqueueNamespace(ctx context.Context, namespace string) error {
	keys, err := r.namespaceKeys(ctx, namespace)
	r.queue.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(namespacePassPriority)}, keys...)
	return err
}

// namespaceKeys are the names of the namespace's local objects and of the
// copies in its twin; none when it is not offloaded to this peer.
func (r *Reflector) namespaceKeys(ctx context.Context, namespace string) ([]types.NamespacedName, error) {
	remoteNs, err := r.peer.Namespaces(ctx, namespace)
	if err != nil {
		r.copies.forget(namespace)
		return nil, nil // not offloaded to this peer: nothing to reflect
	}
	names := map[string]bool{}
	locals := r.kind.NewList()
	// Only the names are read: the cache's objects are not copied.
	if err := r.local.List(ctx, locals, client.InNamespace(namespace), client.UnsafeDisableDeepCopy); err != nil {
		return nil, err
	}
	if err := eachName(locals, names); err != nil {
		return nil, err
	}
	if !r.copies.names(namespace, remoteNs, names) {
		copies := r.kind.NewList()
		if err := r.peer.Remote.List(ctx, copies, client.InNamespace(remoteNs), client.MatchingLabels(copyLabelsOnly(&r.peer))); err != nil {
			return nil, fmt.Errorf("listing %s copies in %s on %s: %w", r.kind.Name, remoteNs, r.peer.RemoteClusterName, err)
		}
		if err := eachName(copies, names); err != nil {
			return nil, err
		}
	}
	keys := make([]types.NamespacedName, 0, len(names))
	for name := range names {
		keys = append(keys, types.NamespacedName{Namespace: namespace, Name: name})
	}
	return keys, nil
}

func (r *Reflector) resyncLoop(ctx context.Context) {
	t := time.NewTicker(r.opts.Resync)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		list := &offloadingv1alpha1.NamespaceOffloadingList{}
		if err := r.local.List(ctx, list); err != nil {
			continue
		}
		offloaded := map[string]bool{}
		var keys []types.NamespacedName
		for i := range list.Items {
			ns := list.Items[i].Namespace
			offloaded[ns] = true
			nsKeys, err := r.namespaceKeys(ctx, ns)
			if err != nil {
				r.listFailed(ns, err)
			}
			keys = append(keys, nsKeys...)
		}
		// A deletion the watch missed still ends the watch of its copies.
		r.copies.retain(offloaded)
		r.pace(ctx, keys, rate.NewLimiter(passRate(len(keys), r.opts.Resync), 1))
	}
}

// minPassRate is the fewest keys a second a resync pass queues: a small
// pass is over in a moment, not spread over the period.
const minPassRate = 100

// passRate spreads a resync pass of n keys over half the resync period, and
// never slower than minPassRate: the pass is over before the next one
// begins, and a copy edited on the provider is repaired within one and a
// half periods. Queued at once, 10,000 EndpointSlices and 10,000
// ConfigMaps kept six workers busy on the manager's two cores for the
// better part of a second, and the API servers with them: updates made in
// that second reached the provider up to 0.5 s late (docs/performance.md,
// target 5, twenty-fourth round).
func passRate(n int, period time.Duration) rate.Limit {
	half := period.Seconds() / 2
	if half <= 0 {
		return rate.Inf
	}
	return rate.Limit(max(float64(n)/half, minPassRate))
}

// keyWaiter is the pace of a pass (a rate.Limiter).
type keyWaiter interface {
	Wait(ctx context.Context) error
}

// pace queues keys one at a time, each after limiter lets it through, at
// the pass's priority; it returns early when ctx ends.
func (r *Reflector) pace(ctx context.Context, keys []types.NamespacedName, limiter keyWaiter) {
	for _, key := range keys {
		if limiter.Wait(ctx) != nil {
			return
		}
		r.queue.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(namespacePassPriority)}, key)
	}
}

func (r *Reflector) work(ctx context.Context) {
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		err := Recovering(r.kind.Name, r.peer.RemoteClusterID, key.String(), func() error { return r.sync(ctx, key) })
		switch {
		case err == nil:
			r.queue.Forget(key)
		case errors.Is(err, ErrPanicked):
			// Counted and logged by Recovering; retrying at once would
			// panic again, the resync tries later.
			r.queue.Forget(key)
		case errors.Is(err, errNotOurs):
			// Retrying cannot help until someone removes the provider's
			// object; the resync tries again.
			errorCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Inc()
			ctrl.Log.WithName("reflection").Info(err.Error())
			r.queue.Forget(key)
		default:
			errorCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Inc()
			ctrl.Log.WithName("reflection").V(1).Info("reflection failed, retrying", "resource", r.kind.Name, "object", key.String(),
				"peer", r.peer.RemoteClusterName, "error", err.Error())
			if ctx.Err() == nil {
				r.queue.AddRateLimited(key)
			}
		}
		r.queue.Done(key)
	}
}

func (r *Reflector) setReflected(key types.NamespacedName, reflected bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if reflected {
		r.reflected[key] = true
	} else {
		delete(r.reflected, key)
	}
	itemCounter.WithLabelValues(r.kind.Name, r.peer.RemoteClusterID).Set(float64(len(r.reflected)))
}
