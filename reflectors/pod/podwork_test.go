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
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

func TestRetryDelayDoublesToItsCap(t *testing.T) {
	for attempts, want := range map[int]time.Duration{
		1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second,
		5: maxRetryDelay, 6: maxRetryDelay, 100: maxRetryDelay, 1 << 20: maxRetryDelay,
	} {
		if got := retryDelay(attempts); got != want {
			t.Errorf("retryDelay(%d) = %s, want %s", attempts, got, want)
		}
	}
}

func TestAdoption(t *testing.T) {
	tests := []struct {
		name, recorded, pod string
		want                adoptAction
	}{
		{name: "the pod's own ShadowPod", recorded: "uid-2", pod: "uid-2", want: adoptAsIs},
		{name: "written before UIDs were recorded", recorded: "", pod: "uid-2", want: adoptAsIs},
		{name: "left by an earlier pod of the same name", recorded: "uid-1", pod: "uid-2", want: replaceStale},
		{name: "a pod without a UID (a test double) cannot tell", recorded: "uid-1", pod: "", want: adoptAsIs},
	}
	for _, tt := range tests {
		if got := adoption(tt.recorded, tt.pod); got != tt.want {
			t.Errorf("%s: adoption(%q, %q) = %d, want %d", tt.name, tt.recorded, tt.pod, got, tt.want)
		}
	}
}

func TestShadowPodVerdict(t *testing.T) {
	now := metav1.Now()
	sp := func(uid string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "web", Annotations: map[string]string{LocalPodUIDAnnotation: uid}}}
	}
	pod := func(uid string, phase corev1.PodPhase, deleting bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", UID: types.UID(uid)}, Status: corev1.PodStatus{Phase: phase}}
		if deleting {
			p.DeletionTimestamp = &now
		}
		return p
	}
	deletingSP := sp("uid-1")
	deletingSP.DeletionTimestamp = &now
	tests := []struct {
		name string
		sp   *metav1.PartialObjectMetadata
		pod  *corev1.Pod
		want verdict
	}{
		{name: "no local pod in the cache: ask the API server", sp: sp("uid-1"), want: confirmGone},
		{name: "local pod being deleted", sp: sp("uid-1"), pod: pod("uid-1", corev1.PodRunning, true), want: deleteShadowPod},
		{name: "live pod, its own ShadowPod: nothing to write", sp: sp("uid-1"), pod: pod("uid-1", corev1.PodRunning, false), want: showStatus},
		{name: "live pod, a ShadowPod that records no pod", sp: sp(""), pod: pod("uid-1", corev1.PodRunning, false), want: rewrite},
		{name: "a newer pod of the same name", sp: sp("uid-1"), pod: pod("uid-2", corev1.PodPending, false), want: rewrite},
		{name: "a newer pod of the same name, being deleted itself", sp: sp("uid-1"), pod: pod("uid-2", corev1.PodPending, true), want: keep},
		{name: "a pod that ran to completion keeps its record", sp: sp("uid-1"), pod: pod("uid-1", corev1.PodSucceeded, false), want: keep},
		{name: "a ShadowPod being deleted already", sp: deletingSP, want: keep},
	}
	for _, tt := range tests {
		if got := shadowPodVerdict(tt.sp, tt.pod); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestStarted(t *testing.T) {
	running := corev1.ContainerStatus{State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	waiting := corev1.ContainerStatus{State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{}}}
	tests := []struct {
		name   string
		status corev1.PodStatus
		want   bool
	}{
		{name: "just scheduled", status: corev1.PodStatus{Phase: corev1.PodPending}},
		{name: "no status yet"},
		{name: "pulling", status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{waiting}}},
		{name: "running", status: corev1.PodStatus{Phase: corev1.PodRunning}, want: true},
		{name: "an init container done, phase not yet Running", status: corev1.PodStatus{Phase: corev1.PodPending, ContainerStatuses: []corev1.ContainerStatus{running}}, want: true},
		{name: "finished", status: corev1.PodStatus{Phase: corev1.PodSucceeded}, want: true},
	}
	for _, tt := range tests {
		if got := started(&corev1.Pod{Status: tt.status}); got != tt.want {
			t.Errorf("%s: started = %t, want %t", tt.name, got, tt.want)
		}
	}
}

func TestOffloadedTwinsListsEveryTwinOfThePeerReadyOrNot(t *testing.T) {
	g := NewWithT(t)
	no := func(ns, remote string, peers map[string]metav1.ConditionStatus) *offloadingv1alpha1.NamespaceOffloading {
		o := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: offloadingv1alpha1.RequiredName}}
		o.Status.RemoteNamespaceName = remote
		o.Status.RemoteNamespacesConditions = map[string]offloadingv1alpha1.RemoteNamespaceConditions{}
		for peer, st := range peers {
			o.Status.RemoteNamespacesConditions[peer] = offloadingv1alpha1.RemoteNamespaceConditions{{Type: offloadingv1alpha1.NamespaceReadyCondition, Status: st}}
		}
		return o
	}
	milan, paris := policies.UniqueClusterName("milan", "milan-id"), policies.UniqueClusterName("paris", "paris-id")
	c := fake.NewClientBuilder().WithScheme(offloadingScheme()).WithObjects(
		no("ready", "ready-x", map[string]metav1.ConditionStatus{milan: metav1.ConditionTrue}),
		no("broken", "broken-x", map[string]metav1.ConditionStatus{milan: metav1.ConditionFalse}),
		no("elsewhere", "elsewhere-x", map[string]metav1.ConditionStatus{paris: metav1.ConditionTrue}),
		no("unnamed", "", map[string]metav1.ConditionStatus{milan: metav1.ConditionFalse}),
	).Build()
	got, err := OffloadedTwins(context.Background(), c, "milan", "milan-id")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(map[string]string{"ready": "ready-x", "broken": "broken-x"}))
}

func TestMapperNamesATwinThatIsNotReady(t *testing.T) {
	g := NewWithT(t)
	c := fake.NewClientBuilder().WithScheme(offloadingScheme()).WithObjects(offloadedTo(metav1.ConditionFalse)).Build()
	_, err := OffloadingMapper(c, "milan", "milan-id")(context.Background(), "apps")
	var notReady *TwinNotReadyError
	g.Expect(errors.As(err, &notReady)).To(BeTrue())
	g.Expect(notReady.Remote).To(Equal("apps-rome-abc"))
	g.Expect(errors.Is(err, ErrNotOffloaded)).To(BeTrue(), "nothing new is placed in it")
}

// podworkFixture is a handler whose provider holds the given ShadowPods in
// twin apps-x of local namespace apps; failing makes every provider write fail.
type podworkFixture struct {
	h       *Handler
	remote  client.Client
	failing *atomic.Bool

	mu      sync.Mutex
	emitted []*corev1.Pod
}

func (f *podworkFixture) emittedCopy() []*corev1.Pod {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*corev1.Pod(nil), f.emitted...)
}

func newPodworkFixture(t *testing.T, mapErr error, shadows ...client.Object) *podworkFixture {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	failing := &atomic.Bool{}
	refused := func() error {
		if failing.Load() {
			return errors.New("dial tcp 127.0.0.1:18901: connect: connection refused")
		}
		return nil
	}
	remote := fake.NewClientBuilder().WithScheme(s).WithObjects(shadows...).WithInterceptorFuncs(interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if err := refused(); err != nil {
				return err
			}
			return c.Create(ctx, obj, opts...)
		},
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			if err := refused(); err != nil {
				return err
			}
			return c.Get(ctx, key, obj, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if err := refused(); err != nil {
				return err
			}
			return c.Delete(ctx, obj, opts...)
		},
	}).Build()
	f := &podworkFixture{remote: remote, failing: failing}
	f.h = &Handler{Remote: remote, LocalClusterID: "rome-id", ClusterName: "milan",
		Twins:      &TwinWatcher{Provider: kubefake.NewClientset(), LocalClusterID: "rome-id"},
		Namespaces: func(context.Context, string) (string, error) { return "apps-x", mapErr }}
	f.h.notify = func(p *corev1.Pod) {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.emitted = append(f.emitted, p.DeepCopy())
	}
	t.Cleanup(f.h.Twins.Stop)
	return f
}

func (f *podworkFixture) shadow(ctx context.Context) (*virtualkubeletv1alpha1.ShadowPod, error) {
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	return sp, f.remote.Get(ctx, client.ObjectKey{Namespace: "apps-x", Name: "web-0"}, sp)
}

func boundPod(uid string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: types.UID(uid)},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

func shadowOf(uid string) *virtualkubeletv1alpha1.ShadowPod {
	return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps-x", Name: "web-0", UID: types.UID("sp-" + uid),
		Labels:      map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"},
		Annotations: map[string]string{LocalPodUIDAnnotation: uid}}}
}

func TestCreatePodRecordsTheUIDAndReplacesAStaleShadowPod(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	f := newPodworkFixture(t, nil, shadowOf("uid-1"))
	g.Expect(f.h.CreatePod(ctx, boundPod("uid-2"))).To(Succeed())
	sp, err := f.shadow(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sp.Annotations).To(HaveKeyWithValue(LocalPodUIDAnnotation, "uid-2"), "the earlier pod's ShadowPod is replaced, not adopted")
	g.Expect(sp.UID).NotTo(Equal(types.UID("sp-uid-1")))
	g.Expect(f.h.isRetrying("apps", "web-0")).To(BeFalse())

	// The pod's own ShadowPod is adopted as it is.
	before := sp.UID
	g.Expect(f.h.CreatePod(ctx, boundPod("uid-2"))).To(Succeed())
	sp, err = f.shadow(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sp.UID).To(Equal(before))
}

func TestCreatePodRetriesItselfAndNeverFailsARestartNeverPod(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newPodworkFixture(t, nil)
	f.failing.Store(true)
	job := boundPod("uid-1")
	job.Spec.RestartPolicy = corev1.RestartPolicyNever
	g.Expect(f.h.CreatePod(ctx, job)).To(Succeed(), "virtual-kubelet would mark a restartPolicy Never pod Failed on an error")
	g.Expect(f.emittedCopy()).To(BeEmpty(), "no status is made up while the provider does not answer")
	g.Expect(f.h.isRetrying("apps", "web-0")).To(BeTrue())

	go f.h.RetryPending(ctx, 10*time.Millisecond)
	g.Consistently(func() bool { return f.h.isRetrying("apps", "web-0") }).WithTimeout(1500 * time.Millisecond).Should(BeTrue())
	f.h.mu.Lock()
	attempts := f.h.retrying["apps/web-0"].attempts
	f.h.mu.Unlock()
	g.Expect(attempts).To(BeNumerically(">=", 2), "retried with backoff")
	f.failing.Store(false)
	g.Eventually(func() error { _, err := f.shadow(ctx); return err }).WithTimeout(5 * time.Second).Should(Succeed())
	g.Eventually(func() bool { return f.h.isRetrying("apps", "web-0") }).Should(BeFalse())
}

func TestDeletePod(t *testing.T) {
	tests := []struct {
		name       string
		mapErr     error
		failing    bool
		shadow     *virtualkubeletv1alpha1.ShadowPod
		wantErr    string
		wantShadow bool
	}{
		{name: "deletes its ShadowPod", shadow: shadowOf("uid-1")},
		{name: "deletes it in a twin that is not Ready", mapErr: &TwinNotReadyError{Namespace: "apps", Remote: "apps-x", ClusterName: "milan"}, shadow: shadowOf("uid-1")},
		{name: "fails while the provider does not answer", failing: true, shadow: shadowOf("uid-1"), wantShadow: true,
			wantErr: "reading ShadowPod apps-x/web-0 on the provider: dial tcp"},
		{name: "fails while the mapping cannot be read", mapErr: errors.New("etcd is down"), shadow: shadowOf("uid-1"), wantShadow: true,
			wantErr: "mapping namespace apps to its twin on cluster milan: etcd is down"},
		{name: "leaves a newer pod's ShadowPod alone", shadow: shadowOf("uid-2"), wantShadow: true},
		{name: "nothing to delete", shadow: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := context.Background()
			var objs []client.Object
			if tt.shadow != nil {
				objs = append(objs, tt.shadow)
			}
			f := newPodworkFixture(t, tt.mapErr, objs...)
			f.failing.Store(tt.failing)
			err := f.h.DeletePod(ctx, boundPod("uid-1"))
			if tt.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tt.wantErr)))
			} else {
				g.Expect(err).NotTo(HaveOccurred())
			}
			f.failing.Store(false)
			_, err = f.shadow(ctx)
			if tt.wantShadow {
				g.Expect(err).NotTo(HaveOccurred())
			} else {
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)
			}
		})
	}
}

func TestRetryOfAPodDeletedLocallyIsDropped(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newPodworkFixture(t, nil)
	f.h.LocalPods = fake.NewClientBuilder().Build() // the pod is gone from the cache
	f.failing.Store(true)
	g.Expect(f.h.CreatePod(ctx, boundPod("uid-1"))).To(Succeed())
	f.failing.Store(false)
	go f.h.RetryPending(ctx, 10*time.Millisecond)
	g.Eventually(func() bool { return f.h.isRetrying("apps", "web-0") }).WithTimeout(3 * time.Second).Should(BeFalse())
	_, err := f.shadow(ctx)
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no ShadowPod for a pod deleted meanwhile")
}

func TestShadowPodRecordsTheLocalUIDWhateverThePodSays(t *testing.T) {
	pod := boundPod("uid-1")
	pod.Annotations = map[string]string{LocalPodUIDAnnotation: "someone-else"}
	if got := ShadowPodFor(pod, "apps-x", "rome-id").Annotations[LocalPodUIDAnnotation]; got != "uid-1" {
		t.Errorf("ShadowPod records UID %q, want uid-1", got)
	}
}

// The resync finds the twins from the NamespaceOffloadings, writes the
// missing ShadowPod of a live pod, and fails a restartPolicy Never pod that
// had run and whose remote copy is gone, rather than run it twice.
func TestResyncRecoversMissingShadowPods(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newPodworkFixture(t, nil)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: offloadingv1alpha1.RequiredName}}
	no.Status.RemoteNamespaceName = "apps-x"
	no.Status.RemoteNamespacesConditions = map[string]offloadingv1alpha1.RemoteNamespaceConditions{
		policies.UniqueClusterName("milan", ""): {{Type: offloadingv1alpha1.NamespaceReadyCondition, Status: metav1.ConditionTrue}}}
	web := boundPod("uid-1")
	job := boundPod("uid-2")
	job.Name, job.Spec.RestartPolicy, job.Status.Phase = "job-0", corev1.RestartPolicyNever, corev1.PodRunning
	cache := fake.NewClientBuilder().WithScheme(s).WithObjects(no, web, job).Build()
	go f.h.CollectOrphans(ctx, cache, kubefake.NewClientset(web, job).CoreV1(), 20*time.Millisecond)

	g.Eventually(func() error { _, err := f.shadow(ctx); return err }).WithTimeout(5*time.Second).Should(Succeed(), "the live pod's ShadowPod is written again")
	g.Eventually(func() []corev1.PodPhase {
		var phases []corev1.PodPhase
		for _, p := range f.emittedCopy() {
			if p.Name == "job-0" {
				phases = append(phases, p.Status.Phase)
			}
		}
		return phases
	}).WithTimeout(5 * time.Second).Should(ContainElement(corev1.PodFailed))
	err := f.remote.Get(ctx, client.ObjectKey{Namespace: "apps-x", Name: "job-0"}, &virtualkubeletv1alpha1.ShadowPod{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a restartPolicy Never pod that ran is not run again")
}
