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
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// copyWatch holds in memory the copies one Reflector made on its peer, so
// that a sync reads the copy it compares against from a watch instead of
// asking the provider each time. Without it every sync cost a GET through
// the peering's client, whose rate limit all the peering's reflectors share:
// a resync pass over 10,000 ConfigMaps was 10,000 GETs, and updates queued
// behind them for minutes (docs/performance.md, target 5).
//
// The consumer's identity may list copies only inside each twin namespace,
// so there is one informer per twin, selected by the copy labels: objects
// Spillway did not make are never held, and a sync that finds nothing here
// and then cannot create (the name is taken) asks the provider as before.
// The watch serves the reads that lead to a create or an update, both of
// which the API server refuses if the watch was behind (the name is taken;
// the resourceVersion moved on), and the sync then asks the provider. A
// deletion is decided on the provider's answer: a copy created a moment ago
// may not be in the watch yet, and nothing would ever delete it.
// There is a watch per twin and kind for as long as the namespace is
// offloaded to the peer: one LIST and one WATCH on the provider each.
type copyWatch struct {
	provider kubernetes.Interface
	resource schema.GroupVersionResource
	selector string

	mu      sync.Mutex
	twins   map[string]*copyTwin // by local namespace
	stopped bool
}

type copyTwin struct {
	remoteNs string
	informer toolscache.SharedIndexInformer
	stop     chan struct{}
}

// newCopyWatch watches kind's copies made for peer, or returns nil when the
// peer has no clientset to watch with (then every read goes to the provider).
func newCopyWatch(kind *Kind, peer *Peer) *copyWatch {
	if peer.Provider == nil {
		return nil
	}
	gvk, err := apiutil.GVKForObject(kind.New(), scheme.Scheme)
	if err != nil {
		return nil
	}
	resource, _ := meta.UnsafeGuessKindToResource(gvk)
	return &copyWatch{provider: peer.Provider, resource: resource,
		selector: labels.SelectorFromSet(copyLabelsOnly(peer)).String()}
}

// watch starts watching the copies in localNs's twin remoteNs (idempotent);
// a twin that changed name replaces the old watch. After stop it does nothing.
func (w *copyWatch) watch(localNs, remoteNs string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if t, ok := w.twins[localNs]; ok {
		if t.remoteNs == remoteNs {
			return
		}
		close(t.stop)
		delete(w.twins, localNs)
	}
	if w.twins == nil {
		w.twins = map[string]*copyTwin{}
	}
	f := informers.NewSharedInformerFactoryWithOptions(w.provider, 0, informers.WithNamespace(remoteNs),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = w.selector }),
		informers.WithTransform(crcache.TransformStripManagedFields()))
	gi, err := f.ForResource(w.resource)
	if err != nil {
		return // not a type the factory knows: reads go to the provider
	}
	t := &copyTwin{remoteNs: remoteNs, informer: gi.Informer(), stop: make(chan struct{})}
	w.twins[localNs] = t
	go t.informer.Run(t.stop)
}

// forget stops watching localNs's twin: the namespace is no longer offloaded
// to this peer.
func (w *copyWatch) forget(localNs string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if t, ok := w.twins[localNs]; ok {
		close(t.stop)
		delete(w.twins, localNs)
	}
}

// retain stops watching the twins of local namespaces not in offloaded.
func (w *copyWatch) retain(offloaded map[string]bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for ns, t := range w.twins {
		if !offloaded[ns] {
			close(t.stop)
			delete(w.twins, ns)
		}
	}
}

// synced returns localNs's twin informer once it has listed remoteNs: only
// then does a copy missing from it mean missing on the provider.
func (w *copyWatch) synced(localNs, remoteNs string) toolscache.SharedIndexInformer {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	t, ok := w.twins[localNs]
	w.mu.Unlock()
	if !ok || t.remoteNs != remoteNs || !t.informer.HasSynced() {
		return nil
	}
	return t.informer
}

// get returns a copy of the object watched in remoteNs under name; known is
// false when the watch cannot tell (not watched or not synced yet).
func (w *copyWatch) get(localNs, remoteNs, name string) (obj client.Object, found, known bool) {
	inf := w.synced(localNs, remoteNs)
	if inf == nil {
		return nil, false, false
	}
	o, exists, err := inf.GetStore().GetByKey(remoteNs + "/" + name)
	if err != nil {
		return nil, false, false
	}
	if !exists {
		return nil, false, true
	}
	ro, ok := o.(runtime.Object)
	if !ok {
		return nil, false, false
	}
	// The informer's object is shared: Merge edits what it is given.
	c, ok := ro.DeepCopyObject().(client.Object)
	return c, ok, ok
}

// names adds the names of the copies watched in remoteNs to into; it
// reports false when the watch cannot tell.
func (w *copyWatch) names(localNs, remoteNs string, into map[string]bool) bool {
	inf := w.synced(localNs, remoteNs)
	if inf == nil {
		return false
	}
	for _, o := range inf.GetStore().List() {
		if acc, err := meta.Accessor(o); err == nil {
			into[acc.GetName()] = true
		}
	}
	return true
}

// stop ends every watch, for good: the reflector is stopping.
func (w *copyWatch) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for ns, t := range w.twins {
		close(t.stop)
		delete(w.twins, ns)
	}
	w.stopped = true
}
