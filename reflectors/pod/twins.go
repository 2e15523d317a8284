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

package pod

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// TwinWatcher watches this consumer's pods in each twin namespace of one
// provider: the consumer's identity may read pods only namespace by namespace,
// so there is one informer per twin. It keeps of each pod its metadata and
// status (providerPod), not the pod: neither its spec, which nothing here
// reads, nor the struct of a pod, which with an empty spec still cost 1,280
// bytes per pod (issue 17, lever 29; see remotePodFootprint). Its readers get
// the informer's own objects: read them, never modify them.
//
// Nothing here waits for a provider: a twin's informer syncs in the
// background, and callers that must not act on a partial view ask Synced.
type TwinWatcher struct {
	Provider       kubernetes.Interface
	LocalClusterID string
	// Shadows, when set, also watches the consumer's ShadowPods in each twin,
	// metadata only (ShadowPods); nil leaves the resync to list them at
	// every pass.
	Shadows metadata.Interface

	mu       sync.Mutex
	twins    map[string]*twin  // by remote namespace
	byLocal  map[string]string // local namespace -> remote namespace
	onChange func(localNs string, pod *providerPod, deleted bool)
	stopped  bool
}

type twin struct {
	localNamespace string
	informer       cache.SharedIndexInformer
	shadows        cache.SharedIndexInformer // nil without Shadows
	stop           chan struct{}
}

type remotePod struct {
	localNamespace string
	pod            *providerPod
}

// OnChange sets the callback for pod changes in any twin. A deleted pod is
// the last state the watch saw of it.
func (w *TwinWatcher) OnChange(f func(localNs string, pod *providerPod, deleted bool)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.onChange = f
}

// Watch starts watching a twin namespace (idempotent) and returns at once. A
// local namespace whose twin changed name stops watching the old one. After
// Stop it does nothing: a late call cannot leak an informer.
func (w *TwinWatcher) Watch(remoteNs, localNs string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	if w.twins == nil {
		w.twins, w.byLocal = map[string]*twin{}, map[string]string{}
	}
	if t, ok := w.twins[remoteNs]; ok && t.localNamespace == localNs {
		return
	}
	if old, ok := w.byLocal[localNs]; ok {
		w.forgetLocked(old)
	}
	if _, ok := w.twins[remoteNs]; ok {
		w.forgetLocked(remoteNs)
	}
	f := informers.NewSharedInformerFactoryWithOptions(w.Provider, 0, informers.WithNamespace(remoteNs),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = sharingv1alpha1.OriginClusterIDLabel + "=" + w.LocalClusterID
		}), informers.WithTransform(remotePodFootprint))
	inf := f.Core().V1().Pods().Informer()
	t := &twin{localNamespace: localNs, informer: inf, stop: make(chan struct{})}
	w.twins[remoteNs], w.byLocal[localNs] = t, remoteNs
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.changed(localNs, o, false) },
		UpdateFunc: func(_, o any) { w.changed(localNs, o, false) },
		DeleteFunc: func(o any) { w.changed(localNs, o, true) },
	})
	go inf.Run(t.stop)
	if w.Shadows != nil {
		t.shadows = w.shadowPodInformer(remoteNs)
		go t.shadows.Run(t.stop)
	}
}

var shadowPodResource = virtualkubeletv1alpha1.GroupVersion.WithResource("shadowpods")

// shadowPodInformer watches the consumer's ShadowPods in remoteNs, keeping
// of each what the resync reads (shadowPodRef). The resync listed them all
// at every pass, every 10 s: at 10,000 pods milan's API server took 0.6 s
// per list (converting every ShadowPod's metadata, managed fields included,
// for a metadata-only response), and rome's manager decoded 10 MB each time
// (issue 17). The watch converts each ShadowPod once per change.
func (w *TwinWatcher) shadowPodInformer(remoteNs string) cache.SharedIndexInformer {
	inf := metadatainformer.NewFilteredMetadataInformer(w.Shadows, shadowPodResource, remoteNs, 0, cache.Indexers{},
		func(o *metav1.ListOptions) {
			o.LabelSelector = sharingv1alpha1.OriginClusterIDLabel + "=" + w.LocalClusterID
		}).Informer()
	_ = inf.SetTransform(func(o any) (any, error) {
		if sp, ok := o.(*metav1.PartialObjectMetadata); ok {
			return shadowPodRef(sp), nil
		}
		return o, nil
	})
	return inf
}

// ShadowPods returns the consumer's ShadowPods in remoteNs, the twin of
// localNs, as the watch last saw them, and false while they are not watched
// or not yet listed, or localNs's twin is another namespace by now. The
// objects are the watch's own: read them, never modify them.
func (w *TwinWatcher) ShadowPods(localNs, remoteNs string) ([]*metav1.PartialObjectMetadata, bool) {
	store := w.shadowPodStore(localNs, remoteNs)
	if store == nil {
		return nil, false
	}
	items := store.List()
	out := make([]*metav1.PartialObjectMetadata, 0, len(items))
	for _, o := range items {
		if sp, ok := o.(*metav1.PartialObjectMetadata); ok {
			out = append(out, sp)
		}
	}
	return out, true
}

// ShadowPod returns the consumer's ShadowPod name in remoteNs, the twin of
// localNs, as the watch last saw it; false when the watch has none, or
// ShadowPods are not watched or not yet listed. The object is the watch's
// own: read it, never modify it.
func (w *TwinWatcher) ShadowPod(localNs, remoteNs, name string) (*metav1.PartialObjectMetadata, bool) {
	store := w.shadowPodStore(localNs, remoteNs)
	if store == nil {
		return nil, false
	}
	o, exists, err := store.GetByKey(remoteNs + "/" + name)
	if err != nil || !exists {
		return nil, false
	}
	sp, ok := o.(*metav1.PartialObjectMetadata)
	return sp, ok
}

// shadowPodStore is the watch of the consumer's ShadowPods in remoteNs, nil
// unless ShadowPods are watched, listed, and remoteNs is still localNs's twin.
func (w *TwinWatcher) shadowPodStore(localNs, remoteNs string) cache.Store {
	current, t := w.twinOf(localNs)
	if t == nil || current != remoteNs || t.shadows == nil || !t.shadows.HasSynced() {
		return nil
	}
	return t.shadows.GetStore()
}

// Retain stops watching every twin whose local namespace is not in keep (local
// namespace -> twin): a namespace no longer offloaded costs no informer.
func (w *TwinWatcher) Retain(keep map[string]string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for remoteNs, t := range w.twins {
		if keep[t.localNamespace] != remoteNs {
			w.forgetLocked(remoteNs)
		}
	}
}

func (w *TwinWatcher) forgetLocked(remoteNs string) {
	t := w.twins[remoteNs]
	if t == nil {
		return
	}
	close(t.stop)
	delete(w.twins, remoteNs)
	if w.byLocal[t.localNamespace] == remoteNs {
		delete(w.byLocal, t.localNamespace)
	}
}

func (w *TwinWatcher) changed(localNs string, o any, deleted bool) {
	p, ok := asProviderPod(o)
	if !ok {
		return
	}
	w.mu.Lock()
	f := w.onChange
	w.mu.Unlock()
	if f != nil {
		f(localNs, p, deleted)
	}
}

// asProviderPod is the provider pod an informer event carries. A deletion
// the watch missed comes as a tombstone of the store's last object, a
// providerPod already; should one hold a pod, it is kept as the transform
// would keep it.
func asProviderPod(o any) (*providerPod, bool) {
	if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
		o = d.Obj
	}
	switch p := o.(type) {
	case *providerPod:
		return p, true
	case *corev1.Pod:
		return keepProviderPod(p), true
	}
	return nil, false
}

func (w *TwinWatcher) twinOf(localNs string) (string, *twin) {
	w.mu.Lock()
	defer w.mu.Unlock()
	remoteNs, ok := w.byLocal[localNs]
	if !ok {
		return "", nil
	}
	return remoteNs, w.twins[remoteNs]
}

// Synced reports whether the twin of localNs is watched and its informer has
// listed it: only then does a pod missing from Get mean missing remotely.
func (w *TwinWatcher) Synced(localNs string) bool {
	_, t := w.twinOf(localNs)
	return t != nil && t.informer.HasSynced()
}

// Get returns the provider pod for a local pod, if its twin is watched: the
// informer's own, not a copy (Get runs for every status report).
func (w *TwinWatcher) Get(localNs, name string) (*providerPod, bool) {
	remoteNs, t := w.twinOf(localNs)
	if t == nil {
		return nil, false
	}
	o, exists, err := t.informer.GetStore().GetByKey(remoteNs + "/" + name)
	if err != nil || !exists {
		return nil, false
	}
	p, ok := o.(*providerPod)
	return p, ok
}

// Watched lists the watched twins as local namespace -> twin namespace.
func (w *TwinWatcher) Watched() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]string, len(w.byLocal))
	for l, r := range w.byLocal {
		out[l] = r
	}
	return out
}

// List returns every watched provider pod.
func (w *TwinWatcher) List() []remotePod {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []remotePod
	for _, t := range w.twins {
		for _, o := range t.informer.GetStore().List() {
			if p, ok := o.(*providerPod); ok {
				out = append(out, remotePod{localNamespace: t.localNamespace, pod: p})
			}
		}
	}
	return out
}

// Stop ends every watch, for good: the peering is going away.
func (w *TwinWatcher) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for remoteNs := range w.twins {
		w.forgetLocked(remoteNs)
	}
	w.stopped = true
}
