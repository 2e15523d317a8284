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

package resourceoffer

import (
	"context"
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// podUsageSource feeds podUsage from the pod informer and enqueues the
// offers each change concerns. Updating the count and deciding whom to wake
// in the same handler means a pass never reads a count older than the event
// that woke it. It is a syncing source: the controller starts no worker
// before the count holds every pod of the informer's first list, so no offer
// is ever sized on a partial count (which would overstate what is free).
type podUsageSource struct {
	informers cache.Informers
	usage     *podUsage
	// requests maps the origins whose usage changed, the pod's origin and
	// whether it arrived or departed to the offers to reconcile.
	requests func(ctx context.Context, changed []string, origin string, arrivedOrDeparted bool) []reconcile.Request

	mu           sync.Mutex
	registration toolscache.ResourceEventHandlerRegistration
}

// Start registers the handler; it does not wait for the informer to sync.
func (s *podUsageSource) Start(ctx context.Context, q workqueue.TypedRateLimitingInterface[reconcile.Request]) error {
	inf, err := s.informers.GetInformer(ctx, &corev1.Pod{}, cache.BlockUntilSynced(false))
	if err != nil {
		return fmt.Errorf("watching Pods to count what they hold of the nodes: %w", err)
	}
	enqueue := func(reqs []reconcile.Request) {
		for _, req := range reqs {
			q.AddAfter(req, usageDebounce)
		}
	}
	reg, err := inf.AddEventHandler(s.handler(ctx, enqueue))
	if err != nil {
		return fmt.Errorf("watching Pods to count what they hold of the nodes: %w", err)
	}
	s.mu.Lock()
	s.registration = reg
	s.mu.Unlock()
	return nil
}

// handler counts each event, then enqueues what s.requests maps it to.
func (s *podUsageSource) handler(ctx context.Context, enqueue func([]reconcile.Request)) toolscache.ResourceEventHandlerFuncs {
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, key, ok := podAndKey(obj); ok {
				enqueue(s.requests(ctx, s.usage.observe(key, pod), podOrigin(pod), true))
			}
		},
		UpdateFunc: func(_, obj any) {
			if pod, key, ok := podAndKey(obj); ok {
				enqueue(s.requests(ctx, s.usage.observe(key, pod), podOrigin(pod), false))
			}
		},
		DeleteFunc: func(obj any) {
			// A tombstone (a deletion the watch missed) still names the pod by key.
			key, err := toolscache.DeletionHandlingMetaNamespaceKeyFunc(obj)
			if err != nil {
				return
			}
			if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
				obj = tombstone.Obj
			}
			pod, _ := obj.(*corev1.Pod)
			enqueue(s.requests(ctx, s.usage.forget(key), podOrigin(pod), true))
		},
	}
}

// WaitForSync returns once the handler has seen the informer's first list.
func (s *podUsageSource) WaitForSync(ctx context.Context) error {
	s.mu.Lock()
	reg := s.registration
	s.mu.Unlock()
	if reg == nil {
		return errors.New("the pod count was never started")
	}
	if !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return fmt.Errorf("the count of what pods hold of the nodes did not load: %w", ctx.Err())
	}
	return nil
}

func (s *podUsageSource) String() string { return "pod usage per node and origin" }

func podAndKey(obj any) (*corev1.Pod, string, bool) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, "", false
	}
	key, err := toolscache.MetaNamespaceKeyFunc(pod)
	return pod, key, err == nil
}

func podOrigin(pod *corev1.Pod) string {
	if pod == nil {
		return ""
	}
	return pod.Labels[sharingv1alpha1.OriginClusterIDLabel]
}
