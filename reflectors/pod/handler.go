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
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/virtual-kubelet/virtual-kubelet/errdefs"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// ReasonOffloadingBackOff is the reason a pod bound to a virtual node shows
// while its namespace is not offloaded to that node's cluster.
const ReasonOffloadingBackOff = "OffloadingBackOff"

// ReasonProviderPodPolicy is the reason of a pod failed because the
// provider's pod policy refuses it: retrying the same pod cannot help.
const ReasonProviderPodPolicy = "ProviderPodPolicy"

// ErrNotOffloaded means a namespace has no ready twin on this provider.
var ErrNotOffloaded = errors.New("namespace not offloaded to this cluster")

// Handler is virtual-kubelet's PodLifecycleHandler for one peering. Every
// method may be called more than once for the same pod (virtual-kubelet
// retries and resyncs), so each is idempotent. The consumer owns the local pod
// and the ShadowPod; the provider owns the real pod and its status.
type Handler struct {
	// Remote is a client for the provider with the consumer's identity and
	// Spillway's scheme; Twins watches the provider's pods.
	Remote client.Client
	Twins  *TwinWatcher
	// Namespaces maps a pod's namespace to its twin on the provider; its
	// errors wrap ErrNotOffloaded when the namespace has no ready twin there.
	Namespaces     reflection.NamespaceMapper
	LocalClusterID string
	RemoteID       string
	NodeIP         string
	// RemoteConfig is the provider's REST config, for exec streams.
	RemoteConfig *rest.Config
	// ClusterName names the provider in error messages.
	ClusterName string
	// APIServerURL is this cluster's API server as offloaded pods reach it;
	// empty keeps them off it (--enable-apiserver-support=false).
	APIServerURL string
	// LocalPods reads local pods (the manager's cache): a provider change
	// that leaves the local status as it already is (its scheduler binding
	// the pod, a label) then costs no write. Nil reports every change.
	LocalPods client.Reader
	// Network maps the provider's pod IPs into this cluster (the fabric's
	// remaps); nil shows them as they are.
	Network *network.Registry

	mu      sync.Mutex
	notify  func(*corev1.Pod)
	local   map[string]*corev1.Pod // last local pod seen, by namespace/name
	pending map[string]*corev1.Pod // pods waiting for their namespace to be offloaded
	refused map[string]*corev1.Pod // pods failed because the provider's pod policy refuses them
}

func key(ns, name string) string { return ns + "/" + name }

func (h *Handler) remember(pod *corev1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.local == nil {
		h.local = map[string]*corev1.Pod{}
	}
	h.local[key(pod.Namespace, pod.Name)] = pod.DeepCopy()
}

// CreatePod writes the ShadowPod. A pod whose namespace is not offloaded here
// is kept Pending with reason OffloadingBackOff and retried.
func (h *Handler) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	h.remember(pod)
	remoteNs, err := h.Namespaces(ctx, pod.Namespace)
	if err != nil {
		h.backOff(pod, err)
		return nil
	}
	h.clearPending(pod)
	h.Twins.Watch(remoteNs, pod.Namespace)
	sp := ShadowPodFor(pod, remoteNs, h.LocalClusterID)
	WithAPIAccess(&sp.Spec.Pod, pod, h.APIServerURL)
	if why := RefusedByEveryProvider(sp); why != "" {
		h.refuse(pod, why)
		return nil
	}
	err = h.Remote.Create(ctx, sp)
	switch {
	case apierrors.IsInvalid(err):
		// The provider's pod policy (422 from its webhook) or schema: permanent.
		h.refuse(pod, fmt.Sprintf("provider %s refused its ShadowPod: %v", h.ClusterName, err))
		return nil
	case err != nil && !apierrors.IsAlreadyExists(err):
		return fmt.Errorf("creating ShadowPod %s/%s on the provider: %w", remoteNs, sp.Name, err)
	}
	return nil
}

// refuse fails pod for good, as a kubelet fails a pod it cannot admit: its
// controller sees why and may create a corrected one.
func (h *Handler) refuse(pod *corev1.Pod, why string) {
	h.hold(&h.refused, pod, corev1.PodFailed, ReasonProviderPodPolicy, fmt.Sprintf("not offloaded to %s: %s", pod.Spec.NodeName, why))
}

// hold records the status the handler reports for a pod it does not run
// (yet), in table, and reports it.
func (h *Handler) hold(table *map[string]*corev1.Pod, pod *corev1.Pod, phase corev1.PodPhase, reason, message string) {
	p := pod.DeepCopy()
	p.Status.Phase, p.Status.Reason, p.Status.Message = phase, reason, message
	h.mu.Lock()
	if *table == nil {
		*table = map[string]*corev1.Pod{}
	}
	(*table)[key(pod.Namespace, pod.Name)] = p
	h.mu.Unlock()
	h.emit(p)
}

// UpdatePod propagates label and annotation changes; a pod spec is immutable
// beyond what the provider's ShadowPod controller can apply.
func (h *Handler) UpdatePod(ctx context.Context, pod *corev1.Pod) error {
	h.remember(pod)
	remoteNs, err := h.twinOf(ctx, pod.Namespace)
	if err != nil || remoteNs == "" {
		return err
	}
	want := ShadowPodFor(pod, remoteNs, h.LocalClusterID)
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	if err := h.Remote.Get(ctx, client.ObjectKeyFromObject(want), sp); err != nil {
		return client.IgnoreNotFound(err)
	}
	sp.Labels, sp.Annotations = want.Labels, want.Annotations
	return h.Remote.Update(ctx, sp)
}

// twinOf maps namespace for UpdatePod and DeletePod: "" and no error when
// the namespace is not offloaded here (no ShadowPod can exist for its pods),
// the error when the mapping could not be read, so virtual-kubelet retries.
func (h *Handler) twinOf(ctx context.Context, namespace string) (string, error) {
	remoteNs, err := h.Namespaces(ctx, namespace)
	switch {
	case errors.Is(err, ErrNotOffloaded):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("mapping namespace %s to its twin on cluster %s: %w", namespace, h.clusterName(), err)
	}
	return remoteNs, nil
}

// DeletePod deletes the ShadowPod; the provider's garbage collector removes the
// pod with its own grace period, and the watch reports it gone.
func (h *Handler) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	// Remember the deletion: when the provider reports the pod gone, the local
	// pod is released at once (see reportGone).
	h.remember(pod)
	h.clearPending(pod)
	remoteNs, err := h.twinOf(ctx, pod.Namespace)
	if err != nil || remoteNs == "" {
		return err
	}
	sp := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Name: pod.Name, Namespace: remoteNs}}
	if err := h.Remote.Delete(ctx, sp); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting ShadowPod %s/%s on the provider: %w", remoteNs, pod.Name, err)
	}
	if _, ok := h.Twins.Get(pod.Namespace, pod.Name); !ok {
		// Already gone remotely: report it terminated so the local pod is released.
		h.reportGone(pod.Namespace, pod.Name)
	}
	return nil
}

// GetPod returns the local view of the provider's pod.
func (h *Handler) GetPod(_ context.Context, namespace, name string) (*corev1.Pod, error) {
	if p := h.pendingPod(namespace, name); p != nil {
		return p, nil
	}
	h.mu.Lock()
	refused := h.refused[key(namespace, name)]
	h.mu.Unlock()
	if refused != nil {
		return refused.DeepCopy(), nil
	}
	remotePod, ok := h.Twins.Get(namespace, name)
	if !ok {
		return nil, errdefs.NotFoundf("pod %s/%s is not running on the provider", namespace, name)
	}
	return h.localView(namespace, remotePod), nil
}

// GetPodStatus returns the local view of the provider pod's status.
func (h *Handler) GetPodStatus(ctx context.Context, namespace, name string) (*corev1.PodStatus, error) {
	p, err := h.GetPod(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	return &p.Status, nil
}

// GetPods lists every pod this consumer runs on the provider.
func (h *Handler) GetPods(context.Context) ([]*corev1.Pod, error) {
	var out []*corev1.Pod
	for _, rp := range h.Twins.List() {
		out = append(out, h.localView(rp.localNamespace, rp.pod))
	}
	return out, nil
}

// NotifyPods registers virtual-kubelet's callback for status changes.
func (h *Handler) NotifyPods(_ context.Context, cb func(*corev1.Pod)) {
	h.mu.Lock()
	h.notify = cb
	h.mu.Unlock()
	h.Twins.OnChange(func(localNs string, remotePod *corev1.Pod, deleted bool) {
		if deleted {
			h.reportGone(localNs, remotePod.Name)
			return
		}
		h.emitIfChanged(h.localView(localNs, remotePod))
	})
}

// localView is the local pod (as last seen) with the provider's status.
func (h *Handler) localView(localNs string, remotePod *corev1.Pod) *corev1.Pod {
	h.mu.Lock()
	base := h.local[key(localNs, remotePod.Name)]
	h.mu.Unlock()
	out := &corev1.Pod{}
	if base != nil {
		out = base.DeepCopy()
	} else {
		out.ObjectMeta = metav1.ObjectMeta{Name: remotePod.Name, Namespace: localNs, Labels: withoutOriginLabels(remotePod.Labels), Annotations: remotePod.Annotations}
		out.Spec = remotePod.Spec
	}
	out.Status = LocalStatus(remotePod, h.Network, h.RemoteID, h.NodeIP, Recreations(remotePod))
	if base != nil {
		keepLocalScheduling(&out.Status, base)
	}
	return out
}

// keepLocalScheduling keeps the local pod's PodScheduled condition (the
// local scheduler placed it on the virtual node) unless the provider could
// not schedule it, which the consumer must see. The provider's own binding
// is its business: reporting it would only move a timestamp, and a freshly
// created remote pod, which has no condition yet, would briefly unschedule
// the local one.
func keepLocalScheduling(st *corev1.PodStatus, local *corev1.Pod) {
	var localCond *corev1.PodCondition
	for i := range local.Status.Conditions {
		if local.Status.Conditions[i].Type == corev1.PodScheduled {
			localCond = &local.Status.Conditions[i]
		}
	}
	if localCond == nil {
		return
	}
	for i := range st.Conditions {
		if st.Conditions[i].Type != corev1.PodScheduled {
			continue
		}
		if st.Conditions[i].Status != corev1.ConditionFalse {
			st.Conditions[i] = *localCond.DeepCopy()
		}
		return
	}
	st.Conditions = append([]corev1.PodCondition{*localCond.DeepCopy()}, st.Conditions...)
}

// emitIfChanged reports p unless the local pod already shows its status. A
// stale cache costs at most a redundant write, never a missed one: whatever
// the cache says, a status it does not show is reported.
func (h *Handler) emitIfChanged(p *corev1.Pod) {
	if h.LocalPods != nil {
		cur := &corev1.Pod{}
		err := h.LocalPods.Get(context.Background(), client.ObjectKeyFromObject(p), cur)
		if err == nil && equality.Semantic.DeepEqual(cur.Status, p.Status) {
			return
		}
	}
	h.emit(p)
}

func withoutOriginLabels(l map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		if k != sharingv1alpha1.OriginClusterIDLabel && k != OriginNamespaceLabel {
			out[k] = v
		}
	}
	return out
}

// reportGone tells virtual-kubelet the pod no longer runs, so a local pod being
// deleted is released at once instead of after its grace period.
func (h *Handler) reportGone(localNs, name string) {
	h.mu.Lock()
	base := h.local[key(localNs, name)]
	delete(h.local, key(localNs, name))
	h.mu.Unlock()
	if base == nil || base.DeletionTimestamp.IsZero() {
		return
	}
	gone := base.DeepCopy()
	gone.Status.Phase = corev1.PodSucceeded
	gone.Status.Reason, gone.Status.Message = "Deleted", "the pod was deleted on the provider"
	h.emit(gone)
}

func (h *Handler) emit(p *corev1.Pod) {
	h.mu.Lock()
	cb := h.notify
	h.mu.Unlock()
	if cb != nil {
		cb(p)
	}
}

func (h *Handler) backOff(pod *corev1.Pod, err error) {
	h.hold(&h.pending, pod, corev1.PodPending, ReasonOffloadingBackOff,
		fmt.Sprintf("cannot run on %s yet: %v; offload the namespace to this cluster (a NamespaceOffloading selecting it)", pod.Spec.NodeName, err))
}

func (h *Handler) pendingPod(ns, name string) *corev1.Pod {
	h.mu.Lock()
	defer h.mu.Unlock()
	if p := h.pending[key(ns, name)]; p != nil {
		return p.DeepCopy()
	}
	return nil
}

func (h *Handler) clearPending(pod *corev1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.pending, key(pod.Namespace, pod.Name))
	delete(h.refused, key(pod.Namespace, pod.Name))
}

// RetryPending creates the pods that waited for their namespace, every
// interval, until ctx ends: a NamespaceOffloading committed after its
// Deployment still gets its pods offloaded.
func (h *Handler) RetryPending(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		h.mu.Lock()
		var pods []*corev1.Pod
		for _, p := range h.pending {
			pods = append(pods, p.DeepCopy())
		}
		h.mu.Unlock()
		for _, p := range pods {
			_ = h.CreatePod(ctx, p)
		}
	}
}

// CollectOrphans deletes, every interval, the ShadowPods whose local pod is
// gone. virtual-kubelet force-deletes a local pod without calling DeletePod
// when it is deleted while none of its containers runs, and sweeps such
// leftovers only once, at start; without this the provider's pod would run on
// for good and its twin namespace could never be removed. A pod counts as gone
// only when the cache misses it and the local API server confirms: an error
// (an outage) leaves everything as it is.
func (h *Handler) CollectOrphans(ctx context.Context, cache client.Reader, local corev1client.PodsGetter, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, rp := range h.Twins.List() {
			if !rp.pod.DeletionTimestamp.IsZero() || h.pendingPod(rp.localNamespace, rp.pod.Name) != nil {
				continue
			}
			key := client.ObjectKey{Namespace: rp.localNamespace, Name: rp.pod.Name}
			if err := cache.Get(ctx, key, &corev1.Pod{}); !apierrors.IsNotFound(err) {
				continue
			}
			if _, err := local.Pods(key.Namespace).Get(ctx, key.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				continue
			}
			sp := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Name: rp.pod.Name, Namespace: rp.pod.Namespace}}
			if err := h.Remote.Delete(ctx, sp); client.IgnoreNotFound(err) == nil {
				ctrl.Log.WithName("virtualnode").Info("deleted the ShadowPod of a pod gone locally", "pod", key.String(), "provider", h.ClusterName)
			}
		}
	}
}
