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
	kubefake "k8s.io/client-go/kubernetes/fake"
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

func watchedTwins(t *testing.T, pods ...*corev1.Pod) *TwinWatcher {
	t.Helper()
	objs := make([]kruntime.Object, 0, len(pods))
	for _, p := range pods {
		objs = append(objs, p)
	}
	w := &TwinWatcher{Provider: kubefake.NewClientset(objs...), LocalClusterID: "rome-id"}
	w.Watch("apps-x", "apps")
	t.Cleanup(w.Stop)
	NewWithT(t).Eventually(func() bool { return w.Synced("apps") }).WithTimeout(5 * time.Second).Should(BeTrue())
	return w
}

func TestTheTwinWatcherKeepsMetadataAndStatusOfAProviderPodNotItsSpec(t *testing.T) {
	g := NewWithT(t)
	sent := watchedProviderPod()
	w := watchedTwins(t, sent.DeepCopy())
	var kept *corev1.Pod
	g.Eventually(func() bool { var ok bool; kept, ok = w.Get("apps", "web-0"); return ok }).WithTimeout(5 * time.Second).Should(BeTrue())

	g.Expect(kept.Spec).To(Equal(corev1.PodSpec{}), "no reader of the provider's pods reads their spec")
	g.Expect(kept.ManagedFields).To(BeNil())
	want := sent.ObjectMeta.DeepCopy()
	want.ManagedFields = nil
	kept.ResourceVersion = "" // set by the fake's tracker
	g.Expect(kept.ObjectMeta).To(Equal(*want), "labels and annotations are read: adoption, recreations, the view's labels")
	g.Expect(kept.Status).To(Equal(sent.Status), "the status is what the consumer is shown")
}

func TestRemotePodFootprintPassesTombstonesAndIsIdempotent(t *testing.T) {
	g := NewWithT(t)
	tomb := toolscache.DeletedFinalStateUnknown{Key: "apps-x/web-0", Obj: watchedProviderPod()}
	out, err := remotePodFootprint(tomb)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(tomb))

	once, err := remotePodFootprint(watchedProviderPod())
	g.Expect(err).NotTo(HaveOccurred())
	twice, err := remotePodFootprint(once.(*corev1.Pod).DeepCopy())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(twice).To(Equal(once))
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
// (managed fields stripped) and after remotePodFootprint: the heap held by
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
