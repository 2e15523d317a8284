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

package shadowpod

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Usage is what the ShadowPods of each namespace request, kept up to date
// from the ShadowPod informer's events. A quota decision reads a few sums
// instead of listing every ShadowPod of the consumer: the list deep-copied
// and re-summed all of them on every create, under the consumer's decision
// lock, which at 10,000 offloaded pods made admission the provider's
// bottleneck (make bench: 740 s of its manager's CPU, and creates queued for
// minutes; docs/performance.md).
//
// The sums follow the informer, so they may lag the API server; the ledger
// covers that window exactly as it covered the cache's (see ledger).
type Usage struct {
	// Informers is where the ShadowPod informer comes from, taken at the
	// first decision as a cached read would (the CRD may be installed after
	// the manager starts). Nil in unit tests, which feed Observe and Forget.
	Informers cache.Informers

	startMu      sync.Mutex
	registration toolscache.ResourceEventHandlerRegistration

	mu sync.RWMutex
	// namespaces holds, per namespace, the sum and each ShadowPod's part of it.
	namespaces map[string]*namespaceUsage
	// namespaceOf finds a ShadowPod's namespace by admittedKey.
	namespaceOf map[string]string
}

type namespaceUsage struct {
	total corev1.ResourceList
	// parts holds what each ShadowPod adds; an empty list for one that
	// counts nothing (deleted or done), which is still known to be seen.
	parts map[string]corev1.ResourceList
}

// usageSyncPoll is how often a decision taken before the first full list
// arrived looks again; it only happens as the manager starts.
const usageSyncPoll = 50 * time.Millisecond

// counted is what sp takes from its consumer's offer: its pod's requests,
// nothing once it is being deleted or its pod is done.
func counted(sp *virtualkubeletv1alpha1.ShadowPod) corev1.ResourceList {
	if !sp.DeletionTimestamp.IsZero() || sp.Status.Phase == corev1.PodSucceeded || sp.Status.Phase == corev1.PodFailed {
		return corev1.ResourceList{}
	}
	return policies.PodRequests(&sp.Spec.Pod)
}

// Observe records sp as it is now (an add or an update).
func (u *Usage) Observe(sp *virtualkubeletv1alpha1.ShadowPod) {
	part := counted(sp)
	key := admittedKey(sp)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.removeLocked(key)
	if u.namespaces == nil {
		u.namespaces, u.namespaceOf = map[string]*namespaceUsage{}, map[string]string{}
	}
	ns := u.namespaces[sp.Namespace]
	if ns == nil {
		ns = &namespaceUsage{total: corev1.ResourceList{}, parts: map[string]corev1.ResourceList{}}
		u.namespaces[sp.Namespace] = ns
	}
	ns.parts[key] = part
	policies.AddRequests(ns.total, part)
	u.namespaceOf[key] = sp.Namespace
}

// Forget removes sp (a deletion).
func (u *Usage) Forget(sp *virtualkubeletv1alpha1.ShadowPod) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.removeLocked(admittedKey(sp))
}

func (u *Usage) removeLocked(key string) {
	name, ok := u.namespaceOf[key]
	if !ok {
		return
	}
	ns := u.namespaces[name]
	for res, q := range ns.parts[key] {
		left := ns.total[res]
		left.Sub(q)
		if left.IsZero() {
			delete(ns.total, res)
		} else {
			ns.total[res] = left
		}
	}
	delete(ns.parts, key)
	delete(u.namespaceOf, key)
	if len(ns.parts) == 0 {
		delete(u.namespaces, name)
	}
}

// Sum is what the ShadowPods of namespaces request, but except's.
func (u *Usage) Sum(namespaces []string, except string) corev1.ResourceList {
	return u.SumWithUnseen(namespaces, except, nil)
}

// SumWithUnseen is Sum plus what unseen adds for the ShadowPods the sums do
// not show yet. unseen runs under the same read lock as the sums, with a seen
// that needs no lock, so the two look at one moment of the informer's count.
// Taken apart, an informer event landing between them left an admitted
// ShadowPod counted by neither: the sums had missed it, then the ledger
// dropped its reservation as seen. CI caught the overshoot: 21 of 50 racing
// 100m creates admitted into a 2-CPU offer (e2e/suites/trust).
//
// Lock order: Usage.mu, then the ledger's; nothing takes them the other way.
func (u *Usage) SumWithUnseen(namespaces []string, except string, unseen func(seen func(key string) bool) corev1.ResourceList) corev1.ResourceList {
	u.mu.RLock()
	defer u.mu.RUnlock()
	used := u.sumLocked(namespaces, except)
	if unseen != nil {
		policies.AddRequests(used, unseen(u.seenLocked))
	}
	return used
}

func (u *Usage) sumLocked(namespaces []string, except string) corev1.ResourceList {
	used := corev1.ResourceList{}
	for _, name := range namespaces {
		if ns := u.namespaces[name]; ns != nil {
			policies.AddRequests(used, ns.total)
		}
	}
	if name, ok := u.namespaceOf[except]; ok && slices.Contains(namespaces, name) {
		for res, q := range u.namespaces[name].parts[except] {
			left := used[res]
			left.Sub(q)
			used[res] = left
		}
	}
	return used
}

// seenLocked tells whether the ShadowPod of admittedKey key is counted
// already; the caller holds u.mu.
func (u *Usage) seenLocked(key string) bool {
	_, ok := u.namespaceOf[key]
	return ok
}

// ready starts following the ShadowPod informer at the first call and
// waits until the sums hold every ShadowPod of its first list: a decision
// taken on a partial count could overshoot the offer.
func (u *Usage) ready(ctx context.Context) error {
	if u.Informers == nil {
		return nil
	}
	u.startMu.Lock()
	if u.registration == nil {
		inf, err := u.Informers.GetInformer(ctx, &virtualkubeletv1alpha1.ShadowPod{})
		if err != nil {
			u.startMu.Unlock()
			return fmt.Errorf("watching ShadowPods to count what consumers use: %w", err)
		}
		reg, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { u.onChange(obj) },
			UpdateFunc: func(_, obj any) { u.onChange(obj) },
			DeleteFunc: u.onDelete,
		})
		if err != nil {
			u.startMu.Unlock()
			return fmt.Errorf("watching ShadowPods to count what consumers use: %w", err)
		}
		u.registration = reg
	}
	reg := u.registration
	u.startMu.Unlock()
	if reg.HasSynced() {
		return nil
	}
	if err := wait.PollUntilContextCancel(ctx, usageSyncPoll, true, func(context.Context) (bool, error) {
		return reg.HasSynced(), nil
	}); err != nil {
		return fmt.Errorf("the provider's count of ShadowPods is still loading: %w", err)
	}
	return nil
}

func (u *Usage) onChange(obj any) {
	if sp, ok := obj.(*virtualkubeletv1alpha1.ShadowPod); ok {
		u.Observe(sp)
	}
}

func (u *Usage) onDelete(obj any) {
	if tombstone, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = tombstone.Obj
	}
	if sp, ok := obj.(*virtualkubeletv1alpha1.ShadowPod); ok {
		u.Forget(sp)
	}
}
