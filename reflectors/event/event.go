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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
// API server indexes an Event's ReportingController under. The manager
// caches only these Events: the reflector is the one reader of Events
// through its cache, and it reads only its copies (write). A cache of every
// Event of the consumer held two or more Events per offloaded pod (issue 17,
// target 3). Copies written by earlier releases carry the same field, so
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
	// Local reads the consumer's pods, NamespaceOffloadings and the copies
	// (a cache of Events must hold those CopiesSelector selects), and writes
	// the copies.
	Local   client.Client
	Watches reflection.Local
	Workers int
	Resync  time.Duration

	queue  workqueue.TypedRateLimitingInterface[types.NamespacedName] // remote namespace/name
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	twins map[string]*twin // by remote namespace
}

type twin struct {
	localNamespace string
	store          toolscache.Store
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
		}
	}
	for remoteNs, localNs := range want {
		if _, ok := r.twins[remoteNs]; !ok {
			r.twins[remoteNs] = r.watch(remoteNs, localNs)
		}
	}
}

func (r *Reflector) watch(remoteNs, localNs string) *twin {
	f := informers.NewSharedInformerFactoryWithOptions(r.Provider, r.Resync, informers.WithNamespace(remoteNs),
		informers.WithTransform(remoteEventFootprint))
	inf := f.Core().V1().Events().Informer()
	enqueue := func(o any) {
		if e, ok := o.(*corev1.Event); ok {
			r.queue.Add(types.NamespacedName{Namespace: e.Namespace, Name: e.Name})
		}
	}
	_, _ = inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, o any) { enqueue(o) }})
	t := &twin{localNamespace: localNs, store: inf.GetStore(), stop: make(chan struct{})}
	go inf.Run(t.stop)
	return t
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
	o, exists, err := t.store.GetByKey(key.String())
	if err != nil || !exists {
		return err
	}
	remote := o.(*corev1.Event)
	if remote.InvolvedObject.Kind != "Pod" {
		return nil
	}
	pod := &corev1.Pod{}
	if err := r.Local.Get(ctx, client.ObjectKey{Namespace: t.localNamespace, Name: remote.InvolvedObject.Name}, pod); err != nil {
		return client.IgnoreNotFound(err)
	}
	if pod.Spec.NodeName != r.Peer.NodeName {
		return nil
	}
	return r.write(ctx, LocalEvent(remote, pod, r.Peer.RemoteClusterName))
}

func (r *Reflector) write(ctx context.Context, want *corev1.Event) error {
	got := &corev1.Event{}
	err := r.Local.Get(ctx, client.ObjectKeyFromObject(want), got)
	switch {
	case apierrors.IsNotFound(err):
		return client.IgnoreAlreadyExists(r.Local.Create(ctx, want, client.FieldOwner(reflection.FieldOwner)))
	case err != nil:
		return err
	case got.Count == want.Count && got.Message == want.Message && got.LastTimestamp.Equal(&want.LastTimestamp):
		return nil
	}
	// A patch of what changed, not an update: the cache keeps no more of a
	// copy than this (CopyFootprint).
	base := got.DeepCopy()
	got.Count, got.Message, got.LastTimestamp = want.Count, want.Message, want.LastTimestamp
	return r.Local.Patch(ctx, got, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(reflection.FieldOwner))
}

// LocalEvent is the consumer's copy of a provider event about pod.
func LocalEvent(remote *corev1.Event, pod *corev1.Pod, remoteClusterName string) *corev1.Event {
	first, last := remote.FirstTimestamp, remote.LastTimestamp
	if first.IsZero() {
		first = metav1.NewTime(remote.EventTime.Time)
	}
	if last.IsZero() {
		last = first
	}
	// An Event's timestamps are stored to the second, and an events.k8s.io
	// event's time is to the microsecond: untruncated, the copy read back
	// never equals the wanted one, and every resync rewrote every event
	// (make bench, 10,000 pods over 16 minutes: 2 PUTs per pod).
	first, last = first.Rfc3339Copy(), last.Rfc3339Copy()
	count := remote.Count
	if count == 0 {
		count = 1
	}
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: remote.Name},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
			FieldPath: remote.InvolvedObject.FieldPath},
		Reason: remote.Reason, Message: remote.Message, Type: remote.Type, Count: count,
		FirstTimestamp: first, LastTimestamp: last,
		Source:              corev1.EventSource{Component: "spillway-virtual-kubelet", Host: pod.Spec.NodeName},
		ReportingController: ReportingController, ReportingInstance: remoteClusterName,
	}
}
