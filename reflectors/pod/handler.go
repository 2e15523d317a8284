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
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
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
//
// CreatePod and UpdatePod never hand virtual-kubelet a transient failure: it
// would mark the pod Pending, or Failed under restartPolicy Never, while its
// remote copy may run on. The handler retries such writes itself, without a
// cap on attempts (see RetryPending), and resyncs every offloaded pod against
// its ShadowPod (see CollectOrphans). DeletePod does return its failures, for
// virtual-kubelet to retry, and the local pod stays until the ShadowPod is gone.
type Handler struct {
	// Remote is a client for the provider with the consumer's identity and
	// Spillway's scheme; Twins watches the provider's pods.
	Remote client.Client
	Twins  *TwinWatcher
	// Namespaces maps a pod's namespace to its twin on the provider; its
	// errors wrap ErrNotOffloaded when the namespace has no ready twin there,
	// and are a *TwinNotReadyError when the twin exists but is not Ready.
	Namespaces     reflection.NamespaceMapper
	LocalClusterID string
	RemoteID       string
	NodeIP         string
	// NodeName is the virtual node's name; empty means the one named after
	// ClusterName (virtualkubeletv1alpha1.VirtualNodeName).
	NodeName string
	// RemoteConfig is the provider's REST config, for exec streams.
	RemoteConfig *rest.Config
	// ClusterName names the provider in error messages.
	ClusterName string
	// APIServerURL is this cluster's API server as offloaded pods reach it;
	// empty keeps them off it (--enable-apiserver-support=false).
	APIServerURL string
	// LocalPods reads local pods (the manager's cache): a provider change
	// that leaves the local status as it already is (its scheduler binding
	// the pod, a label) then costs no write, and a retry of a pod deleted
	// meanwhile is dropped. Nil reports every change and retries blindly.
	LocalPods client.Reader
	// PodIndex, when set, is the index of the informer behind the cache the
	// resync reads (the manager's informer of local pods): a pass then reads
	// the cache's own pods of a namespace rather than a list's copies of
	// them (see podsIn). Nil lists through the cache.
	PodIndex toolscache.Indexer
	// Network maps the provider's pod IPs into this cluster (the fabric's
	// remaps); nil shows them as they are.
	Network *network.Registry

	// podLocks serializes, per pod, DeletePod with the ShadowPod writes the
	// handler makes on its own (the resync pass, the retries), which check
	// the pod again under it: otherwise a write checked just before a
	// DeletePod could land just after it and re-create the deleted pod's
	// ShadowPod. virtual-kubelet already serializes its own calls for one
	// pod. Striped (a pod takes the lock its key hashes to) so nothing needs
	// cleaning up as pods come and go.
	podLocks [64]sync.Mutex
	// contended, when set (tests), is called when a pod's lock is found taken.
	contended func()

	mu       sync.Mutex
	notify   func(*corev1.Pod)
	local    map[string]*keptPod    // what is kept of the last local pod seen (see remember), by namespace/name
	pending  map[string]*corev1.Pod // pods waiting for their namespace to be offloaded
	refused  map[string]*corev1.Pod // pods failed because the provider's pod policy refuses them
	retrying map[string]*retry      // pods whose ShadowPod write failed, retried with backoff
	deleting map[string]types.UID   // pods whose ShadowPod DeletePod deletes, by namespace/name

	// deletedLocally: the deletions of the node's pods the informer
	// delivered, by namespace/name (see LocalPodDeleted); lastDeletePod:
	// when virtual-kubelet last called DeletePod.
	deletedLocally map[string]localDeletion
	lastDeletePod  time.Time
	// lastCreatePod: when virtual-kubelet last called CreatePod (see
	// queuedForCreate).
	lastCreatePod time.Time

	// ShadowPods (by UID) whose local pod the previous and the current resync
	// pass found missing; only the resync's goroutine uses them.
	orphansSeen, orphansNext map[types.UID]bool
	// Pods (by namespace/name) whose local status the previous and the
	// current pass found showing the provider's, and of which versions (see
	// resyncStatus); only the resync's goroutine uses them.
	shownBefore, shownNow map[string]shownStatus
	shownRemap            network.Mapping // the remap shownNow's matches were found under
}

func key(ns, name string) string { return ns + "/" + name }

func (h *Handler) nodeName() string {
	if h.NodeName != "" {
		return h.NodeName
	}
	return virtualkubeletv1alpha1.VirtualNodeName(h.ClusterName)
}

// CreatePod writes the ShadowPod. A pod whose namespace is not offloaded here
// is kept Pending with reason OffloadingBackOff and retried; a write the
// provider did not take is retried (RetryPending) and nil returned.
func (h *Handler) CreatePod(ctx context.Context, pod *corev1.Pod) error {
	h.noteCreatePod()
	h.remember(pod)
	h.retryOnFailure(pod, h.sync(ctx, pod))
	return nil
}

// UpdatePod propagates label and annotation changes; a pod spec is immutable
// beyond what the provider's ShadowPod controller can apply. Like CreatePod,
// it retries a failed write itself.
func (h *Handler) UpdatePod(ctx context.Context, pod *corev1.Pod) error {
	h.remember(pod)
	h.retryOnFailure(pod, h.sync(ctx, pod))
	return nil
}

// sync makes pod's ShadowPod exist with pod's UID, labels and annotations:
// created when missing, its metadata updated when it is pod's, replaced when
// it was left by an earlier pod of the same name. A namespace without a
// ready twin parks the pod (OffloadingBackOff); a refused pod fails for good.
func (h *Handler) sync(ctx context.Context, pod *corev1.Pod) error {
	remoteNs, err := h.Namespaces(ctx, pod.Namespace)
	if err != nil {
		h.backOff(pod, err)
		return nil
	}
	h.clearPending(pod)
	h.Twins.Watch(remoteNs, pod.Namespace)
	sp := ShadowPodFor(pod, remoteNs, h.LocalClusterID)
	WithAPIAccess(&sp.Spec.Pod, pod, h.APIServerURL)
	if err := h.nameTwinClaims(ctx, pod.Namespace, remoteNs, &sp.Spec.Pod); err != nil {
		return err
	}
	if why := RefusedByEveryProvider(sp); why != "" {
		h.refuse(pod, why)
		return nil
	}
	if h.ownShadowPodWatched(pod, remoteNs) {
		// A create would be answered AlreadyExists, after the provider's
		// admission and schema checks had run (issue 17, lever 36): settle
		// the ShadowPod in place. One deleted since the watch saw it is
		// created below.
		if err := h.adopt(ctx, pod, sp); !apierrors.IsNotFound(err) {
			return err
		}
	}
	err = h.Remote.Create(ctx, sp)
	switch {
	case err == nil:
		return nil
	case apierrors.IsInvalid(err):
		// The provider's pod policy (422 from its webhook) or schema: permanent.
		h.refuse(pod, fmt.Sprintf("provider %s refused its ShadowPod: %v", h.ClusterName, err))
		return nil
	case !apierrors.IsAlreadyExists(err):
		return fmt.Errorf("creating ShadowPod %s/%s on the provider: %w", remoteNs, sp.Name, err)
	}
	return h.adopt(ctx, pod, sp)
}

// adopt settles a ShadowPod that already exists under pod's name: pod's own
// (same UID) gets pod's metadata; one an earlier pod left (another UID) is
// deleted and created anew, so the provider runs pod's spec, not its
// predecessor's. One without a UID was written before UIDs were recorded and
// is taken as pod's: replacing it would restart every pod after an upgrade.
func (h *Handler) adopt(ctx context.Context, pod *corev1.Pod, want *virtualkubeletv1alpha1.ShadowPod) error {
	cur := &virtualkubeletv1alpha1.ShadowPod{}
	if err := h.Remote.Get(ctx, client.ObjectKeyFromObject(want), cur); err != nil {
		return fmt.Errorf("reading ShadowPod %s/%s on the provider: %w", want.Namespace, want.Name, err)
	}
	switch adoption(cur.Annotations[LocalPodUIDAnnotation], string(pod.UID)) {
	case adoptAsIs:
		if equality.Semantic.DeepEqual(cur.Labels, want.Labels) && equality.Semantic.DeepEqual(cur.Annotations, want.Annotations) {
			return nil
		}
		cur.Labels, cur.Annotations = want.Labels, want.Annotations
		if err := h.Remote.Update(ctx, cur); err != nil {
			return fmt.Errorf("updating ShadowPod %s/%s on the provider: %w", cur.Namespace, cur.Name, err)
		}
		return nil
	case replaceStale:
		stale := cur.Annotations[LocalPodUIDAnnotation]
		if err := h.Remote.Delete(ctx, cur, client.Preconditions{UID: &cur.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting ShadowPod %s/%s of an earlier pod (UID %s) on the provider: %w", cur.Namespace, cur.Name, stale, err)
		}
		ctrl.Log.WithName("virtualnode").Info("replaced the ShadowPod of an earlier pod of the same name",
			"pod", key(pod.Namespace, pod.Name), "uid", pod.UID, "earlierUID", stale, "provider", h.ClusterName)
		if err := h.Remote.Create(ctx, want); err != nil {
			return fmt.Errorf("creating ShadowPod %s/%s on the provider in place of an earlier pod's: %w", want.Namespace, want.Name, err)
		}
	}
	return nil
}

// adoptAction is what to do with a ShadowPod found under a pod's name.
type adoptAction int

const (
	adoptAsIs adoptAction = iota
	replaceStale
)

// adoption decides from the UID a ShadowPod records and the local pod's.
func adoption(recorded, podUID string) adoptAction {
	if recorded == "" || podUID == "" || recorded == podUID {
		return adoptAsIs
	}
	return replaceStale
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

// knownTwin maps namespace for DeletePod and the resync: the twin's name
// whether it is Ready or not (what runs there is still ours to delete), ""
// and no error when the namespace has no twin on this provider (no ShadowPod
// can exist for its pods), the error when the mapping could not be read, so
// the caller retries rather than leak a ShadowPod.
func (h *Handler) knownTwin(ctx context.Context, namespace string) (string, error) {
	remoteNs, err := h.Namespaces(ctx, namespace)
	var notReady *TwinNotReadyError
	switch {
	case err == nil:
		return remoteNs, nil
	case errors.As(err, &notReady):
		return notReady.Remote, nil
	case errors.Is(err, ErrNotOffloaded):
		return "", nil
	}
	return "", fmt.Errorf("mapping namespace %s to its twin on cluster %s: %w", namespace, h.clusterName(), err)
}

// DeletePod deletes the ShadowPod; the provider's garbage collector removes the
// pod with its own grace period, and the watch reports it gone. It fails, and
// virtual-kubelet retries it, while the mapping cannot be read or the provider
// does not answer: a local pod released before its ShadowPod is deleted would
// leave the remote pod running for no one.
func (h *Handler) DeletePod(ctx context.Context, pod *corev1.Pod) error {
	defer h.lockPod(pod.Namespace, pod.Name)()
	// Remember the deletion: when the provider reports the pod gone, the local
	// pod is released at once (see reportGone).
	h.remember(pod)
	h.clearPending(pod)
	h.stopRetrying(pod)
	h.noteDeletePod()
	remoteNs, err := h.knownTwin(ctx, pod.Namespace)
	if err != nil || remoteNs == "" {
		return err
	}
	sent, err := h.deleteWatchedShadowPod(ctx, remoteNs, pod)
	if err != nil {
		return err
	}
	if sent {
		h.reportIfGone(pod)
		return nil
	}
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	err = h.Remote.Get(ctx, client.ObjectKey{Namespace: remoteNs, Name: pod.Name}, sp)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("reading ShadowPod %s/%s on the provider: %w", remoteNs, pod.Name, err)
	case adoption(sp.Annotations[LocalPodUIDAnnotation], string(pod.UID)) == replaceStale:
		// A newer pod of the same name owns it now.
	default:
		h.markDeleting(pod)
		if err := h.Remote.Delete(ctx, sp, client.Preconditions{UID: &sp.UID}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting ShadowPod %s/%s on the provider: %w", remoteNs, pod.Name, err)
		}
	}
	h.reportIfGone(pod)
	return nil
}

// GetPod returns the local view of the provider's pod, with the local pod's
// spec (see withLocalSpec).
func (h *Handler) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	p, err := h.view(namespace, name)
	if err != nil {
		return nil, err
	}
	h.withLocalSpec(ctx, p)
	return p, nil
}

// view is the pod GetPod returns, without the spec the handler does not keep.
func (h *Handler) view(namespace, name string) (*corev1.Pod, error) {
	if p := h.pendingPod(namespace, name); p != nil && !started(p) {
		return p, nil
	}
	h.mu.Lock()
	refused := h.refused[key(namespace, name)]
	h.mu.Unlock()
	if refused != nil {
		return refused.DeepCopy(), nil
	}
	remotePod, ok := h.Twins.Get(namespace, name)
	if !ok || h.staleForLocal(namespace, remotePod) {
		// A remote pod of an earlier local pod of the same name is not this
		// one's: virtual-kubelet then calls CreatePod, which replaces it.
		return nil, errdefs.NotFoundf("pod %s/%s is not running on the provider", namespace, name)
	}
	return h.localView(namespace, remotePod), nil
}

// withLocalSpec gives a view built on a remembered pod (which has no spec)
// the spec of the local pod the cache holds, when it is the same pod.
// virtual-kubelet compares GetPod's pod with the local one (containers,
// tolerations, labels, annotations) and calls UpdatePod when they differ;
// UpdatePod propagates labels and annotations, which the view keeps as last
// synced, so a change of either still reaches it. Without the cache, or when
// it holds another pod, the spec stays empty: virtual-kubelet then calls
// UpdatePod, which is idempotent and costs one ShadowPod sync.
func (h *Handler) withLocalSpec(ctx context.Context, p *corev1.Pod) {
	if h.LocalPods == nil || p.UID == "" || len(p.Spec.Containers) > 0 {
		return
	}
	cur := &corev1.Pod{}
	if err := h.LocalPods.Get(ctx, client.ObjectKeyFromObject(p), cur); err != nil || cur.UID != p.UID {
		return
	}
	p.Spec = cur.Spec
}

// staleForLocal reports whether remotePod stands for an earlier local pod of
// the same name than the one the local cache holds now.
func (h *Handler) staleForLocal(localNs string, remotePod *providerPod) bool {
	recorded := remotePod.Annotations[LocalPodUIDAnnotation]
	if recorded == "" || h.LocalPods == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), localReadTimeout)
	defer cancel()
	cur := &corev1.Pod{}
	if err := h.LocalPods.Get(ctx, client.ObjectKey{Namespace: localNs, Name: remotePod.Name}, cur); err != nil {
		return false
	}
	return adoption(recorded, string(cur.UID)) == replaceStale
}

// localReadTimeout bounds a read of the manager's cache made where no
// context is at hand (informer callbacks).
const localReadTimeout = 5 * time.Second

// GetPodStatus returns the local view of the provider pod's status.
func (h *Handler) GetPodStatus(_ context.Context, namespace, name string) (*corev1.PodStatus, error) {
	p, err := h.view(namespace, name)
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
	h.Twins.OnChange(func(localNs string, remotePod *providerPod, deleted bool) {
		base := h.remembered(localNs, remotePod.Name)
		if (base != nil && adoption(remotePod.Annotations[LocalPodUIDAnnotation], string(base.UID)) == replaceStale) ||
			(base == nil && h.staleForLocal(localNs, remotePod)) {
			// The remote pod of an earlier local pod of the same name: its
			// status is not the current pod's, nor is its end.
			return
		}
		if deleted {
			h.reportGone(localNs, remotePod.Name, "")
			return
		}
		h.emitIfChanged(h.localView(localNs, remotePod))
	})
}

// localView is the local pod (as last seen) with the provider's status. A
// pod the handler does not remember is shown with the provider's pod's
// metadata and no spec: the TwinWatcher keeps none (remotePodFootprint).
func (h *Handler) localView(localNs string, remotePod *providerPod) *corev1.Pod {
	h.mu.Lock()
	base := h.local[key(localNs, remotePod.Name)]
	h.mu.Unlock()
	out := &corev1.Pod{}
	if base != nil {
		out = base.pod()
	} else {
		out.ObjectMeta = metav1.ObjectMeta{Name: remotePod.Name, Namespace: localNs, Labels: withoutOriginLabels(remotePod.Labels), Annotations: remotePod.Annotations}
	}
	out.Status = LocalStatus(&remotePod.Status, h.Network, h.RemoteID, h.NodeIP, Recreations(remotePod.Annotations))
	if base != nil {
		keepLocalScheduling(&out.Status, base.scheduled)
	}
	return out
}

// keepLocalScheduling keeps the local pod's PodScheduled condition (the
// local scheduler placed it on the virtual node) unless the provider could
// not schedule it, which the consumer must see. The provider's own binding
// is its business: reporting it would only move a timestamp, and a freshly
// created remote pod, which has no condition yet, would briefly unschedule
// the local one.
//
// local is the local pod's condition, zero when it has none.
func keepLocalScheduling(st *corev1.PodStatus, local corev1.PodCondition) {
	if local.Type != corev1.PodScheduled {
		return
	}
	for i := range st.Conditions {
		if st.Conditions[i].Type != corev1.PodScheduled {
			continue
		}
		if st.Conditions[i].Status != corev1.ConditionFalse {
			st.Conditions[i] = local
		}
		return
	}
	st.Conditions = append([]corev1.PodCondition{local}, st.Conditions...)
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
// uid, when set, must be the remembered pod's.
func (h *Handler) reportGone(localNs, name string, uid types.UID) {
	h.mu.Lock()
	base := h.local[key(localNs, name)]
	if base != nil && uid != "" && base.UID != uid {
		h.mu.Unlock()
		return
	}
	delete(h.local, key(localNs, name))
	delete(h.deleting, key(localNs, name))
	h.mu.Unlock()
	if base == nil || base.DeletionTimestamp.IsZero() {
		return
	}
	gone := base.pod()
	gone.Status.Phase = corev1.PodSucceeded
	gone.Status.Reason, gone.Status.Message = "Deleted", "the pod was deleted on the provider"
	h.emit(gone)
}

// backOff parks a pod whose namespace has no ready twin here until it has
// one. A pod that already started keeps the status it shows: its remote copy
// may run on in a twin that is only not Ready for now.
func (h *Handler) backOff(pod *corev1.Pod, err error) {
	h.stopRetrying(pod)
	if started(pod) {
		h.mu.Lock()
		if h.pending == nil {
			h.pending = map[string]*corev1.Pod{}
		}
		h.pending[key(pod.Namespace, pod.Name)] = pod.DeepCopy()
		h.mu.Unlock()
		return
	}
	h.hold(&h.pending, pod, corev1.PodPending, ReasonOffloadingBackOff,
		fmt.Sprintf("cannot run on %s yet: %v; offload the namespace to this cluster (a NamespaceOffloading selecting it)", pod.Spec.NodeName, err))
}

// started reports whether a pod has run (or runs) somewhere: its status is
// then the provider's, not one to replace with Pending.
func started(pod *corev1.Pod) bool {
	switch pod.Status.Phase {
	case corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
		return true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil || cs.State.Terminated != nil {
			return true
		}
	}
	return false
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
