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
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Backoff of a ShadowPod write the provider did not take: doubling from
// firstRetryDelay to maxRetryDelay, and never giving up. The cap bounds how
// late a pod is handled after an outage ends.
const (
	firstRetryDelay = time.Second
	maxRetryDelay   = 15 * time.Second
)

// retry is a pod whose ShadowPod write failed.
type retry struct {
	pod      *corev1.Pod
	attempts int
	next     time.Time
	since    time.Time
}

// retryDelay is the wait after the given number of failed attempts (≥ 1).
func retryDelay(attempts int) time.Duration {
	d := firstRetryDelay
	for i := 1; i < attempts && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(d, maxRetryDelay)
}

// retryOnFailure queues pod for another attempt when err is set, and clears
// its entry when the write went through.
func (h *Handler) retryOnFailure(pod *corev1.Pod, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	r := h.retrying[k]
	if err == nil {
		if r != nil {
			delete(h.retrying, k)
			ctrl.Log.WithName("virtualnode").Info("wrote the ShadowPod after failed attempts", "pod", k, "provider", h.ClusterName,
				"attempts", r.attempts+1, "after", time.Since(r.since).Round(time.Millisecond).String())
		}
		return
	}
	now := time.Now()
	if r == nil || r.pod.UID != pod.UID {
		r = &retry{since: now}
		if h.retrying == nil {
			h.retrying = map[string]*retry{}
		}
		h.retrying[k] = r
	}
	r.pod, r.attempts = pod.DeepCopy(), r.attempts+1
	r.next = now.Add(retryDelay(r.attempts))
	if r.attempts == 1 || r.attempts%10 == 0 {
		ctrl.Log.WithName("virtualnode").Info("writing the ShadowPod failed; retrying", "pod", k, "provider", h.ClusterName,
			"attempts", r.attempts, "retryIn", retryDelay(r.attempts).String(), "error", err.Error())
	}
}

// stopRetrying forgets a pod's failed write: the pod is being deleted.
func (h *Handler) stopRetrying(pod *corev1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.retrying, key(pod.Namespace, pod.Name))
}

func (h *Handler) isRetrying(ns, name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.retrying[key(ns, name)] != nil
}

// RetryPending writes again, every interval until ctx ends, the ShadowPods
// of pods that waited for their namespace (a NamespaceOffloading committed
// after its Deployment still gets its pods offloaded) and of pods whose write
// failed and whose backoff has passed. Attempts have no cap: a provider down
// for an hour gets its pods once it answers.
func (h *Handler) RetryPending(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, p := range h.due(time.Now()) {
			h.retryOne(ctx, p)
		}
	}
}

// retryOne writes p's ShadowPod again, under p's lock (see podLocks) and
// only while p is still parked or retried: a DeletePod since due listed it
// stopped its retry, and the cache that stillLocal reads may not show the
// deletion yet.
func (h *Handler) retryOne(ctx context.Context, p *corev1.Pod) {
	defer h.lockPod(p.Namespace, p.Name)()
	if !h.stillDue(p) {
		return
	}
	if !h.stillLocal(ctx, p) {
		h.forget(p)
		return
	}
	h.retryOnFailure(p, h.sync(ctx, p))
}

// stillDue reports whether pod is still parked or retried, as the same pod.
func (h *Handler) stillDue(pod *corev1.Pod) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	if p := h.pending[k]; p != nil && p.UID == pod.UID {
		return true
	}
	r := h.retrying[k]
	return r != nil && r.pod.UID == pod.UID
}

// due lists the parked pods and the failed writes whose backoff has passed.
func (h *Handler) due(now time.Time) []*corev1.Pod {
	h.mu.Lock()
	defer h.mu.Unlock()
	var pods []*corev1.Pod
	for _, p := range h.pending {
		pods = append(pods, p.DeepCopy())
	}
	for k, r := range h.retrying {
		if _, parked := h.pending[k]; !parked && !now.Before(r.next) {
			pods = append(pods, r.pod.DeepCopy())
		}
	}
	return pods
}

// stillLocal reports whether pod still exists locally, as the same pod and
// not being deleted: virtual-kubelet drops a pod that never ran without
// calling DeletePod, and its retry must not bring its ShadowPod back. Any
// doubt (no cache, a read error) keeps the retry.
func (h *Handler) stillLocal(ctx context.Context, pod *corev1.Pod) bool {
	if h.LocalPods == nil {
		return true
	}
	cur := &corev1.Pod{}
	err := h.LocalPods.Get(ctx, client.ObjectKeyFromObject(pod), cur)
	if apierrors.IsNotFound(err) {
		return false
	}
	return err != nil || (cur.UID == pod.UID && cur.DeletionTimestamp.IsZero())
}

// forget drops every record of a pod gone locally.
func (h *Handler) forget(pod *corev1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := key(pod.Namespace, pod.Name)
	delete(h.pending, k)
	delete(h.refused, k)
	delete(h.retrying, k)
	if h.deleting[k] == pod.UID {
		delete(h.deleting, k)
	}
	if p := h.local[k]; p != nil && p.UID == pod.UID {
		delete(h.local, k)
	}
}
