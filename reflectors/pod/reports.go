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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/network"
)

// emit reports p's status to virtual-kubelet, as a status report (see
// statusReport): it keeps the last one of every pod.
func (h *Handler) emit(p *corev1.Pod) {
	h.mu.Lock()
	cb := h.notify
	h.mu.Unlock()
	if cb != nil {
		cb(statusReport(p))
	}
}

// emitIfChanged reports p unless the local pod already shows its status. A
// stale cache costs at most a redundant write, never a missed one: whatever
// the cache says, a status it does not show is reported.
func (h *Handler) emitIfChanged(p *corev1.Pod) {
	h.emitIfChangedFrom(nil, p)
}

// emitIfChangedFrom is emitIfChanged for a caller that holds the local pod
// as the cache showed it a moment ago (the resync's pass): a status it
// already shows is not reported and costs no read of the cache (a deep copy
// of the whole pod: 3.6 s of rome's manager's CPU per 10,000 pods in the
// passes of one benchmark, issue 17). One it does not show is checked
// against the cache's current pod, which may be newer, before it is reported.
// It reports whether held already showed p's status.
func (h *Handler) emitIfChangedFrom(held, p *corev1.Pod) (shown bool) {
	if held != nil && held.UID == p.UID && equality.Semantic.DeepEqual(held.Status, p.Status) {
		return true
	}
	if h.LocalPods != nil {
		ctx, cancel := context.WithTimeout(context.Background(), localReadTimeout)
		defer cancel()
		cur := &corev1.Pod{}
		err := h.LocalPods.Get(ctx, client.ObjectKeyFromObject(p), cur)
		if err == nil && equality.Semantic.DeepEqual(cur.Status, p.Status) {
			return false
		}
	}
	h.emit(p)
	return false
}

// shownStatus names what a pass compared: the local pod's and the provider
// pod's resource versions. The local view of the provider's pod is made of
// those and of the fabric's remap of the provider's pod IPs, which is one
// for every pod of the peering: nextStatusPass forgets every match when it
// changed. Kept per pod in the mapping, it made the pass's two maps 4.6 MB
// of rome's manager's heap at 10,000 pods (issue 17, lever 25).
type shownStatus struct {
	local, remote string
}

// nextStatusPass starts a resync pass's status comparisons: the matches the
// last pass found are the ones to trust, unless the remap changed since
// they were found.
func (h *Handler) nextStatusPass() {
	remap := h.remap()
	if remap != h.shownRemap {
		h.shownNow, h.shownRemap = nil, remap
	}
	h.shownBefore, h.shownNow = h.shownNow, map[string]shownStatus{}
}

// remap is the fabric's mapping of the provider's pod network, the zero
// Mapping without one.
func (h *Handler) remap() network.Mapping {
	if h.Network == nil {
		return network.Mapping{}
	}
	m, _ := h.Network.Get(h.RemoteID)
	return m
}

// resyncStatus reports the provider pod r's status for the local pod, unless
// the local pod already shows it. The comparison is skipped when neither pod
// nor the remap changed since a pass found them matching: the local view it
// builds and compares (a copy of the pod, then a reflective DeepEqual of two
// statuses) was 5.6 s of rome's manager's 68 s at 10,000 pods (issue 17,
// lever 14), every 10 s for every pod, almost all of them unchanged. A
// status that did not match is compared again at every pass, as before.
func (h *Handler) resyncStatus(pod *corev1.Pod, r *providerPod) {
	if h.shownNow == nil {
		h.shownNow = map[string]shownStatus{}
	}
	k := key(pod.Namespace, pod.Name)
	now := shownStatus{local: pod.ResourceVersion, remote: r.ResourceVersion}
	if pod.ResourceVersion != "" && r.ResourceVersion != "" && h.shownBefore[k] == now {
		h.shownNow[k] = now
		return
	}
	if h.emitIfChangedFrom(pod, h.localView(pod.Namespace, r)) {
		h.shownNow[k] = now
	}
}
