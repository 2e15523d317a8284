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

package podbench

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/flowcontrol"
)

// Creator creates pods at a fixed rate and times each one until its creator
// sees it Running. The same Creator settings are used on both sides, so that
// only the path a pod takes differs.
type Creator struct {
	// Client creates the pods and watches them; its own rate limiter should be
	// off (QPS < 0): QPS below is the one pacing.
	Client kubernetes.Interface
	// QPS is the explicit creation rate, pods per second.
	QPS float64
	// Workers send creates in parallel, so a slow answer does not lower the rate.
	Workers int
	// Timeout bounds the wait for the last pod.
	Timeout time.Duration
}

// timings records, per pod name, when its create was sent and when it was
// first seen Running.
type timings struct {
	mu       sync.Mutex
	created  map[string]time.Time
	running  map[string]time.Time
	want     int
	complete chan struct{}
}

func newTimings(want int) *timings {
	return &timings{created: map[string]time.Time{}, running: map[string]time.Time{}, want: want, complete: make(chan struct{})}
}

func (t *timings) sent(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.created[name] = at
}

func (t *timings) seen(p *corev1.Pod, at time.Time) {
	if p.Status.Phase != corev1.PodRunning {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.running[p.Name]; ok {
		return
	}
	t.running[p.Name] = at
	if len(t.running) == t.want {
		close(t.complete)
	}
}

// sample turns the timings into latencies; a pod never sent or never Running
// is unfinished.
func (t *timings) sample(names []string) Sample {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := Sample{Sent: map[string]time.Time{}, Running: map[string]time.Time{}}
	var first, last time.Time
	for _, n := range names {
		c, sent := t.created[n]
		r, ran := t.running[n]
		if !sent || !ran {
			s.Unfinished++
			continue
		}
		s.Sent[n], s.Running[n] = c, r
		s.Latencies = append(s.Latencies, r.Sub(c))
		if first.IsZero() || c.Before(first) {
			first = c
		}
		if r.After(last) {
			last = r
		}
	}
	if !first.IsZero() {
		s.Wall = last.Sub(first)
	}
	return s
}

// Run creates pods (all in one namespace, all carrying selector's labels) and
// returns what the creator observed. The watch starts before the first create,
// so no transition to Running is missed.
func (c Creator) Run(ctx context.Context, namespace string, selector map[string]string, pods []*corev1.Pod) (Sample, error) {
	t := newTimings(len(pods))
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	stop := make(chan struct{})
	defer close(stop)
	if err := c.watch(namespace, selector, t, stop); err != nil {
		return Sample{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	createErr := c.createAll(ctx, namespace, pods, t)
	select {
	case <-t.complete:
	case <-ctx.Done():
	}
	s := t.sample(names)
	if createErr != nil {
		return s, createErr
	}
	return s, nil
}

func (c Creator) watch(namespace string, selector map[string]string, t *timings, stop chan struct{}) error {
	lw := cache.NewFilteredListWatchFromClient(c.Client.CoreV1().RESTClient(), "pods", namespace, func(o *metav1.ListOptions) {
		o.LabelSelector = labels.SelectorFromSet(selector).String()
		o.FieldSelector = fields.Everything().String()
	})
	inf := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { t.seen(o.(*corev1.Pod), time.Now()) },
		UpdateFunc: func(_, o any) { t.seen(o.(*corev1.Pod), time.Now()) },
	})
	if err != nil {
		return err
	}
	go inf.Run(stop)
	if !cache.WaitForCacheSync(stop, inf.HasSynced) {
		return fmt.Errorf("watching pods in namespace %s: the informer did not sync", namespace)
	}
	return nil
}

// createAll sends the creates at c.QPS. A pod's time starts when its create is
// sent, after the rate limiter: waiting for a token is the creator's pacing,
// not the cluster's latency.
func (c Creator) createAll(ctx context.Context, namespace string, pods []*corev1.Pod, t *timings) error {
	limiter := flowcontrol.NewTokenBucketRateLimiter(float32(c.QPS), 1)
	defer limiter.Stop()
	queue := make(chan *corev1.Pod)
	errs := make(chan error, len(pods))
	var wg sync.WaitGroup
	for range max(c.Workers, 1) {
		wg.Go(func() {
			for p := range queue {
				errs <- c.create(ctx, namespace, p, t)
			}
		})
	}
	for _, p := range pods {
		if err := limiter.Wait(ctx); err != nil {
			break
		}
		queue <- p
	}
	close(queue)
	wg.Wait()
	close(errs)
	failed, firstErr := 0, error(nil)
	for err := range errs {
		if err != nil {
			failed++
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d pods in namespace %s were not created, first error: %w", failed, len(pods), namespace, firstErr)
	}
	return nil
}

// create sends one create, retrying briefly on errors a loaded API server
// returns (the pod's time still starts at the first attempt).
func (c Creator) create(ctx context.Context, namespace string, p *corev1.Pod, t *timings) error {
	t.sent(p.Name, time.Now())
	var err error
	for attempt := range 5 {
		_, err = c.Client.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{})
		if err == nil || apierrors.IsAlreadyExists(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt+1) * 200 * time.Millisecond):
		}
	}
	return fmt.Errorf("creating pod %s/%s: %w", namespace, p.Name, err)
}
