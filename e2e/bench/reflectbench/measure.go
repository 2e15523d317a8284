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

package reflectbench

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
)

// watcher records when each object is first seen at a revision.
type watcher struct {
	mu       sync.Mutex
	revision string
	seen     map[string]time.Time
	done     chan struct{}
	want     int
}

func newWatcher(revision string, want int) *watcher {
	return &watcher{revision: revision, seen: map[string]time.Time{}, done: make(chan struct{}), want: want}
}

func (w *watcher) observe(o any) {
	u, ok := o.(*unstructured.Unstructured)
	if !ok || u.GetAnnotations()[RevisionAnnotation] != w.revision {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.seen[u.GetName()]; ok {
		return
	}
	w.seen[u.GetName()] = now
	if len(w.seen) == w.want {
		close(w.done)
	}
}

// watch starts an informer on kind in namespace that feeds w.
func watch(ctx context.Context, c dynamic.Interface, kind Kind, namespace string, w *watcher) error {
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(c, 0, namespace, nil)
	inf := f.ForResource(kind.Resource).Informer()
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: w.observe, UpdateFunc: func(_, o any) { w.observe(o) }}); err != nil {
		return err
	}
	go inf.Run(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return fmt.Errorf("watching %s in %s: %w", kind.Resource.Resource, namespace, ctx.Err())
	}
	return nil
}

// Batch is one kind's measurement: the same writes as seen by a local
// watcher and on the provider's copies.
type Batch struct {
	Kind      string
	Objects   int
	Vanilla   podbench.Sample
	Reflected podbench.Sample
	// Provider is milan's API server's account of the copies' updates.
	Provider ProviderWrites
}

// bump writes revision to every object at qps, returning when each was sent.
func bump(ctx context.Context, c dynamic.Interface, kind Kind, namespace string, n int, revision string, qps float64) (map[string]time.Time, error) {
	limiter := rate.NewLimiter(rate.Limit(qps), 1)
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, RevisionAnnotation, revision))
	sent := make(map[string]time.Time, n)
	for i := range n {
		if err := limiter.Wait(ctx); err != nil {
			return sent, err
		}
		sent[name(i)] = time.Now()
		if _, err := c.Resource(kind.Resource).Namespace(namespace).Patch(ctx, name(i), types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return sent, fmt.Errorf("updating %s %s: %w", kind.Name, name(i), err)
		}
	}
	return sent, nil
}

// sample turns send and seen times into latencies; objects never seen count
// as unfinished.
func sample(sent map[string]time.Time, w *watcher) podbench.Sample {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Sent and Running (here: seen at the revision) let the slowest 1 %
	// be placed in time (podbench.SlowWindows).
	s := podbench.Sample{Sent: sent, Running: make(map[string]time.Time, len(w.seen))}
	var first, last time.Time
	for name, at := range sent {
		if first.IsZero() || at.Before(first) {
			first = at
		}
		seen, ok := w.seen[name]
		if !ok {
			s.Unfinished++
			continue
		}
		s.Running[name] = seen
		s.Latencies = append(s.Latencies, seen.Sub(at))
		if seen.After(last) {
			last = seen
		}
	}
	if !last.IsZero() {
		s.Wall = last.Sub(first)
	}
	return s
}

// revisionOf is the revision number as a string.
func revisionOf(n int) string { return strconv.Itoa(n) }
