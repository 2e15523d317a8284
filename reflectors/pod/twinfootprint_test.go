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
	"runtime"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// watchedProviderPod is the provider's pod of footprintPod as the TwinWatcher sees
// it: what the consumer reads (metadata, the recreations count, status) and
// what it does not (managed fields, spec).
func watchedProviderPod() *corev1.Pod {
	p := runningTwin()
	p.Annotations[virtualkubeletv1alpha1.RecreationsAnnotation] = "2"
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler", Operation: metav1.ManagedFieldsOperationUpdate}}
	p.Status.HostIP = "10.0.0.5"
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", Ready: true, RestartCount: 1}}
	return p
}

// watchingProvider is a fake provider holding objs, and a channel closed once
// a watch of its pods is registered. An informer lists, then watches, and
// the fake's watch does not replay what changed in between: a test that
// changes a provider pod as soon as the TwinWatcher is Synced must wait for
// the watch too, or the change may never be seen.
func watchingProvider(objs ...kruntime.Object) (*kubefake.Clientset, <-chan struct{}) {
	cs := kubefake.NewClientset(objs...)
	watching := make(chan struct{})
	var once sync.Once
	cs.PrependWatchReactor("pods", func(a clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if wa, ok := a.(clienttesting.WatchActionImpl); ok {
			opts = wa.ListOptions
		}
		w, err := cs.Tracker().Watch(a.GetResource(), a.GetNamespace(), opts)
		if err == nil {
			once.Do(func() { close(watching) })
		}
		return true, w, err
	})
	return cs, watching
}

// watchTwins has w watch apps-x for apps and waits until it has listed the
// twin and watches it.
func watchTwins(t *testing.T, w *TwinWatcher, watching <-chan struct{}) {
	t.Helper()
	w.Watch("apps-x", "apps")
	t.Cleanup(w.Stop)
	g := NewWithT(t)
	g.Eventually(func() bool { return w.Synced("apps") }).WithTimeout(5 * time.Second).Should(BeTrue())
	g.Eventually(watching).WithTimeout(5 * time.Second).Should(BeClosed())
}

func watchedTwins(t *testing.T, pods ...*corev1.Pod) *TwinWatcher {
	t.Helper()
	objs := make([]kruntime.Object, 0, len(pods))
	for _, p := range pods {
		objs = append(objs, p)
	}
	provider, watching := watchingProvider(objs...)
	w := &TwinWatcher{Provider: provider, LocalClusterID: "rome-id"}
	watchTwins(t, w, watching)
	return w
}

// keptAsSent checks that kept is sent's metadata, without managed fields,
// and status.
func keptAsSent(g Gomega, kept *providerPod, sent *corev1.Pod) {
	g.ExpectWithOffset(1, kept.ManagedFields).To(BeNil())
	want := sent.ObjectMeta.DeepCopy()
	want.ManagedFields = nil
	got := kept.ObjectMeta.DeepCopy()
	got.ResourceVersion = "" // set by the fake's tracker
	g.ExpectWithOffset(1, *got).To(Equal(*want), "labels and annotations are read: adoption, recreations, the view's labels")
	g.ExpectWithOffset(1, kept.Status).To(Equal(sent.Status), "the status is what the consumer is shown")
}

func TestTheTwinWatcherKeepsMetadataAndStatusOfAProviderPodNotItsSpec(t *testing.T) {
	g := NewWithT(t)
	sent := watchedProviderPod()
	w := watchedTwins(t, sent.DeepCopy())
	var kept *providerPod
	g.Eventually(func() bool { var ok bool; kept, ok = w.Get("apps", "web-0"); return ok }).WithTimeout(5 * time.Second).Should(BeTrue())
	keptAsSent(g, kept, sent)

	// No reader of the provider's pods reads their spec, and a pod's struct
	// without one was still 1,280 bytes: the store holds neither.
	items := w.twins["apps-x"].informer.GetStore().List()
	g.Expect(items).To(HaveLen(1))
	g.Expect(items[0]).To(BeAssignableToTypeOf(&providerPod{}))
	g.Expect(items[0]).To(BeIdenticalTo(kept), "Get hands out the store's object, not a copy")
	listed := w.List()
	g.Expect(listed).To(HaveLen(1))
	g.Expect(listed[0].localNamespace).To(Equal("apps"))
	g.Expect(listed[0].pod).To(BeIdenticalTo(kept))
}

// OnChange delivers what the store holds, metadata and status intact, for
// an addition, an update and a deletion alike.
func TestTheTwinWatcherDeliversProviderPodsWholeToOnChange(t *testing.T) {
	g := NewWithT(t)
	type event struct {
		localNs string
		pod     *providerPod
		deleted bool
	}
	events := make(chan event, 10)
	provider, watching := watchingProvider()
	w := &TwinWatcher{Provider: provider, LocalClusterID: "rome-id"}
	w.OnChange(func(localNs string, p *providerPod, deleted bool) { events <- event{localNs, p, deleted} })
	watchTwins(t, w, watching)
	next := func() event {
		select {
		case e := <-events:
			return e
		case <-time.After(5 * time.Second):
			t.Fatal("no change delivered")
		}
		return event{}
	}
	ctx := context.Background()
	pods := w.Provider.CoreV1().Pods("apps-x")

	sent := watchedProviderPod()
	_, err := pods.Create(ctx, sent.DeepCopy(), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	e := next()
	g.Expect(e.localNs).To(Equal("apps"))
	g.Expect(e.deleted).To(BeFalse())
	keptAsSent(g, e.pod, sent)

	sent.Status.Phase = corev1.PodSucceeded
	sent.Annotations[virtualkubeletv1alpha1.RecreationsAnnotation] = "3"
	_, err = pods.Update(ctx, sent.DeepCopy(), metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	e = next()
	g.Expect(e.deleted).To(BeFalse())
	keptAsSent(g, e.pod, sent)
	kept, ok := w.Get("apps", "web-0")
	g.Expect(ok).To(BeTrue())
	g.Expect(kept).To(BeIdenticalTo(e.pod))

	g.Expect(pods.Delete(ctx, "web-0", metav1.DeleteOptions{})).To(Succeed())
	e = next()
	g.Expect(e.deleted).To(BeTrue())
	keptAsSent(g, e.pod, sent)
	_, ok = w.Get("apps", "web-0")
	g.Expect(ok).To(BeFalse())
}

// A deletion the watch missed reaches the handlers as a tombstone of the
// store's last object, a providerPod; one of a pod is taken the same way.
func TestAProviderPodIsTakenFromATombstone(t *testing.T) {
	g := NewWithT(t)
	sent := watchedProviderPod()
	kept := keepProviderPod(sent.DeepCopy())
	p, ok := asProviderPod(toolscache.DeletedFinalStateUnknown{Key: "apps-x/web-0", Obj: kept})
	g.Expect(ok).To(BeTrue())
	g.Expect(p).To(BeIdenticalTo(kept))
	p, ok = asProviderPod(toolscache.DeletedFinalStateUnknown{Key: "apps-x/web-0", Obj: sent.DeepCopy()})
	g.Expect(ok).To(BeTrue())
	keptAsSent(g, p, sent)
	_, ok = asProviderPod(toolscache.DeletedFinalStateUnknown{Key: "apps-x/web-0", Obj: "something else"})
	g.Expect(ok).To(BeFalse())
}

// The informer's store keys and copies what it holds through the
// runtime.Object and metav1.Object interfaces; a copy shares nothing.
func TestAProviderPodIsAnObjectTheStoreCanKeyAndCopy(t *testing.T) {
	g := NewWithT(t)
	p := keepProviderPod(watchedProviderPod())
	var obj kruntime.Object = p
	key, err := toolscache.MetaNamespaceKeyFunc(obj)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(key).To(Equal("apps-x/web-0"))
	g.Expect(obj.GetObjectKind().GroupVersionKind().Empty()).To(BeTrue())

	c, ok := obj.DeepCopyObject().(*providerPod)
	g.Expect(ok).To(BeTrue())
	g.Expect(c).To(Equal(p))
	c.Annotations["note"] = "changed"
	c.Status.ContainerStatuses[0].RestartCount = 9
	g.Expect(p.Annotations).NotTo(HaveKey("note"))
	g.Expect(p.Status.ContainerStatuses[0].RestartCount).To(Equal(int32(1)))
}

func TestRemotePodFootprintPassesTombstonesAndIsIdempotent(t *testing.T) {
	g := NewWithT(t)
	tomb := toolscache.DeletedFinalStateUnknown{Key: "apps-x/web-0", Obj: watchedProviderPod()}
	out, err := remotePodFootprint(tomb)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(tomb))

	once, err := remotePodFootprint(watchedProviderPod())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(once).To(BeAssignableToTypeOf(&providerPod{}))
	// The reflector's watch-list path transforms what it streams, then the
	// queue's Replace transforms it again.
	twice, err := remotePodFootprint(once)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(twice).To(BeIdenticalTo(once))
}

// TestTheConsumerSeesTheProvidersStatusFromASpeclessPod: every path that
// shows the consumer a provider pod works from the kept metadata and status.
func TestTheConsumerSeesTheProvidersStatusFromASpeclessPod(t *testing.T) {
	g := NewWithT(t)
	local := footprintPod()
	h := &Handler{ClusterName: "milan", LocalClusterID: "rome-id", NodeIP: "192.168.1.10", Twins: watchedTwins(t, watchedProviderPod())}
	h.LocalPods = fake.NewClientBuilder().WithObjects(local.DeepCopy()).Build()
	var mu sync.Mutex
	var phases []corev1.PodPhase
	h.NotifyPods(context.Background(), func(p *corev1.Pod) { mu.Lock(); phases = append(phases, p.Status.Phase); mu.Unlock() })
	ctx := context.Background()

	// A pod the handler does not remember (a manager just restarted): the
	// view has the provider's status and metadata. Its annotations are the
	// provider's, which the local pod never carries, so virtual-kubelet
	// calls UpdatePod for it with or without a spec.
	st, err := h.GetPodStatus(ctx, "apps", "web-0")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(st.Phase).To(Equal(corev1.PodRunning))
	g.Expect(st.HostIP).To(Equal("192.168.1.10"), "a kubelet reported the pod: the virtual node's address")
	g.Expect(st.ContainerStatuses[0].RestartCount).To(Equal(int32(3)), "restarts plus the provider's recreations")
	view, err := h.GetPod(ctx, "apps", "web-0")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(view.Annotations).To(HaveKeyWithValue(LocalPodUIDAnnotation, "uid-1"))
	g.Expect(local.Annotations).NotTo(HaveKey(LocalPodUIDAnnotation))
	pods, err := h.GetPods(ctx)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pods).To(HaveLen(1))
	g.Expect(pods[0].Status.Phase).To(Equal(corev1.PodRunning))

	// Once remembered, the view is the local pod with the provider's status
	// and the local spec, as before.
	h.remember(local)
	view, err = h.GetPod(ctx, "apps", "web-0")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(view.Spec.Containers).To(Equal(local.Spec.Containers))
	g.Expect(view.Status.Phase).To(Equal(corev1.PodRunning))

	// A change on the provider still reaches virtual-kubelet.
	done := watchedProviderPod()
	done.Status.Phase = corev1.PodSucceeded
	_, err = h.Twins.Provider.CoreV1().Pods("apps-x").UpdateStatus(ctx, done, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() []corev1.PodPhase {
		mu.Lock()
		defer mu.Unlock()
		return append([]corev1.PodPhase(nil), phases...)
	}).
		WithTimeout(5 * time.Second).Should(ContainElement(corev1.PodSucceeded))
}

// BenchmarkTwinWatcherHeldPerPod measures what the TwinWatcher holds per
// provider pod, decoded from protobuf as its informer decodes it, before
// (managed fields stripped), with its spec dropped (the pod kept, as before
// lever 29) and after remotePodFootprint: the heap held by
// b.N pods after a GC, per pod (metric held-B/pod). The bench pod stands in
// for the provider's pod, which is of about the same size.
//
//	go test -run '^$' -bench TwinWatcherHeldPerPod ./reflectors/pod/
func BenchmarkTwinWatcherHeldPerPod(b *testing.B) {
	raw, err := benchPod(b).Marshal()
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		keep func(*corev1.Pod) any
	}{
		{"managed fields stripped", func(p *corev1.Pod) any { p.ManagedFields = nil; return p }},
		{"spec dropped", func(p *corev1.Pod) any { p.ManagedFields, p.Spec = nil, corev1.PodSpec{}; return p }},
		{"remotePodFootprint", func(p *corev1.Pod) any { o, _ := remotePodFootprint(p); return o }},
	} {
		b.Run(c.name, func(b *testing.B) {
			held := make([]any, b.N)
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for i := range held {
				p := &corev1.Pod{}
				if err := p.Unmarshal(raw); err != nil {
					b.Fatal(err)
				}
				held[i] = c.keep(p)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(held)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "held-B/pod")
		})
	}
}
