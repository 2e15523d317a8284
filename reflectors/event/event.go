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

// Package event reflects, the other way round, the provider's events about
// offloaded pods into the consumer: `kubectl describe pod` on the consumer
// then shows why a pod is pulling, backing off or failing on the provider.
// Only events about pods bound to this peering's virtual node are copied;
// the consumer's own events are never sent anywhere.
package event

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// Name is the resource's name in flags and metrics.
const Name = "event"

// ReportingController marks the copies, so they are told apart from the
// consumer's own events.
const ReportingController = "liqo.io/event-reflection"

// CopiesSelector selects the copies this reflector writes, by the field the
// API server indexes an Event's ReportingController under: listCopies lists
// only these. Copies written by earlier releases carry the same field, so
// the filter loses none of them.
func CopiesSelector() fields.Selector {
	return fields.OneTermEqualSelector("reportingComponent", ReportingController)
}

// Reflector copies one provider's pod events into the consumer. It watches
// events namespace by namespace, because the consumer's identity may read
// them only in its twins.
type Reflector struct {
	Peer     reflection.Peer
	Provider kubernetes.Interface
	// Local reads the consumer's pods and NamespaceOffloadings, from the
	// manager's cache, and writes the copies.
	Local client.Client
	// Copies lists the copies from the API server (listCopies): nothing
	// caches them.
	Copies  client.Reader
	Watches reflection.Local
	Workers int
	// Resync is how often each twin's copies are listed and realigned with
	// the provider's events.
	Resync time.Duration

	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName] // remote namespace/name
	cancel context.CancelFunc
	wg     sync.WaitGroup

	copies copyRecords

	mu    sync.Mutex
	twins map[string]*twin // by remote namespace
}

type twin struct {
	localNamespace string
	informer       toolscache.SharedIndexInformer
	stop           chan struct{}
}

// Start watches the twins of every namespace offloaded to the peer.
func (r *Reflector) Start(ctx context.Context) error {
	if r.Workers <= 0 {
		return nil
	}
	ctx, r.cancel = context.WithCancel(ctx)
	r.twins = map[string]*twin{}
	r.queue = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName]())
	inf, err := r.Watches.GetInformer(ctx, &offloadingv1alpha1.NamespaceOffloading{})
	if err != nil {
		return fmt.Errorf("event reflection: watching NamespaceOffloadings: %w", err)
	}
	handle, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(any) { r.syncTwins(ctx) }, UpdateFunc: func(_, _ any) { r.syncTwins(ctx) }, DeleteFunc: func(any) { r.syncTwins(ctx) },
	})
	if err != nil {
		return err
	}
	r.wg.Go(func() {
		<-ctx.Done()
		_ = inf.RemoveEventHandler(handle)
	})
	for range r.Workers {
		r.wg.Go(func() { r.work(ctx) })
	}
	r.wg.Go(func() { r.realignEvery(ctx) })
	return nil
}

// Stop ends every watch and waits for the workers.
func (r *Reflector) Stop() {
	if r.cancel == nil {
		return
	}
	r.cancel()
	r.queue.ShutDown()
	r.mu.Lock()
	for ns, t := range r.twins {
		close(t.stop)
		delete(r.twins, ns)
	}
	r.mu.Unlock()
	r.wg.Wait()
}

// syncTwins starts a watch for each twin of this peer and stops the watches
// of namespaces no longer offloaded here.
func (r *Reflector) syncTwins(ctx context.Context) {
	list := &offloadingv1alpha1.NamespaceOffloadingList{}
	if err := r.Local.List(ctx, list); err != nil {
		return
	}
	want := map[string]string{}
	for _, no := range list.Items {
		if remoteNs, err := r.Peer.Namespaces(ctx, no.Namespace); err == nil {
			want[remoteNs] = no.Namespace
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if ctx.Err() != nil {
		return
	}
	for remoteNs, t := range r.twins {
		if want[remoteNs] != t.localNamespace {
			close(t.stop)
			delete(r.twins, remoteNs)
			r.copies.drop(t.localNamespace)
		}
	}
	for remoteNs, localNs := range want {
		if _, ok := r.twins[remoteNs]; !ok {
			r.twins[remoteNs] = r.watch(ctx, remoteNs, localNs)
		}
	}
}

// watch starts watching the provider's events in remoteNs once the copies
// in localNs are recorded: an event synced before would find no record
// and write its copy again.
func (r *Reflector) watch(ctx context.Context, remoteNs, localNs string) *twin {
	f := informers.NewSharedInformerFactoryWithOptions(r.Provider, 0, informers.WithNamespace(remoteNs),
		informers.WithTransform(remoteEventFootprint))
	inf := f.Core().V1().Events().Informer()
	_, _ = inf.AddEventHandler(r.enqueueEvents())
	t := &twin{localNamespace: localNs, informer: inf, stop: make(chan struct{})}
	go func() {
		if r.recordCopies(ctx, t) {
			inf.Run(t.stop)
		}
	}()
	return t
}

// enqueueEvents queues every provider event the watch adds or changes.
func (r *Reflector) enqueueEvents() toolscache.ResourceEventHandler {
	enqueue := func(o any) {
		if e, ok := o.(*remoteEvent); ok {
			r.queue.Add(types.NamespacedName{Namespace: e.namespace, Name: e.name})
		}
	}
	return toolscache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }}
}

// recordCopies lists t's copies until it succeeds, backing off, and says
// false if t stopped being watched first.
func (r *Reflector) recordCopies(ctx context.Context, t *twin) bool {
	delay := time.Second
	for {
		err := r.listCopies(ctx, t.localNamespace)
		if err == nil {
			return true
		}
		ctrl.Log.WithName("reflection").V(1).Info("listing event copies failed, retrying", "namespace", t.localNamespace, "error", err.Error())
		select {
		case <-ctx.Done():
			return false
		case <-t.stop:
			return false
		case <-time.After(delay):
		}
		delay = min(2*delay, 30*time.Second)
	}
}

// realignEvery lists every watched twin's copies each Resync and syncs
// every provider event again, so that a copy someone changed or deleted
// says again what the provider's event does.
func (r *Reflector) realignEvery(ctx context.Context) {
	period := r.Resync
	if period <= 0 {
		period = reflection.DefaultResync
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.realign(ctx)
		}
	}
}

func (r *Reflector) realign(ctx context.Context) {
	r.mu.Lock()
	twins := make([]*twin, 0, len(r.twins))
	for _, t := range r.twins {
		twins = append(twins, t)
	}
	r.mu.Unlock()
	for _, t := range twins {
		if !t.informer.HasSynced() { // still recording its copies
			continue
		}
		if err := r.listCopies(ctx, t.localNamespace); err != nil {
			ctrl.Log.WithName("reflection").V(1).Info("listing event copies failed", "namespace", t.localNamespace, "error", err.Error())
			continue // the records stand; the next pass lists again
		}
		for _, k := range t.informer.GetStore().ListKeys() {
			if ns, name, err := toolscache.SplitMetaNamespaceKey(k); err == nil {
				r.queue.Add(types.NamespacedName{Namespace: ns, Name: name})
			}
		}
	}
}

func (r *Reflector) work(ctx context.Context) {
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return
		}
		err := reflection.Recovering(Name, r.Peer.RemoteClusterID, key.String(), func() error { return r.sync(ctx, key) })
		switch {
		case errors.Is(err, reflection.ErrPanicked):
			r.queue.Forget(key) // counted and logged; a retry would panic again
		case err != nil && ctx.Err() == nil:
			reflection.RecordError(Name, r.Peer.RemoteClusterID)
			ctrl.Log.WithName("reflection").V(1).Info("event reflection failed, retrying", "event", key.String(), "error", err.Error())
			r.queue.AddRateLimited(key)
		default:
			r.queue.Forget(key)
		}
		r.queue.Done(key)
	}
}

// sync copies one provider event, if it is about a pod of this peering.
func (r *Reflector) sync(ctx context.Context, key types.NamespacedName) error {
	r.mu.Lock()
	t := r.twins[key.Namespace]
	r.mu.Unlock()
	if t == nil {
		return nil
	}
	o, exists, err := t.informer.GetStore().GetByKey(key.String())
	if err != nil || !exists {
		return err
	}
	remote, ok := o.(*remoteEvent)
	if !ok || !remote.aboutPod {
		return nil
	}
	pod := &corev1.Pod{}
	if err := r.Local.Get(ctx, client.ObjectKey{Namespace: t.localNamespace, Name: remote.podName}, pod); err != nil {
		return client.IgnoreNotFound(err)
	}
	if pod.Spec.NodeName != r.Peer.NodeName {
		return nil
	}
	return r.write(ctx, remote.copyFor(pod, r.Peer.RemoteClusterName))
}

// LocalEvent is the consumer's copy of a provider event about pod.
func LocalEvent(remote *corev1.Event, pod *corev1.Pod, remoteClusterName string) *corev1.Event {
	return footprintOf(remote).copyFor(pod, remoteClusterName)
}
