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
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// footprintPod is a local pod bound to the virtual node, with everything a
// status write must carry and a spec it must not.
func footprintPod() *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: "uid-1",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "kept"},
			Finalizers: []string{"example.com/hold"}},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
			Tolerations: []corev1.Toleration{{Key: "virtual-node.liqo.io/not-allowed", Operator: corev1.TolerationOpExists}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(100, 0)}}},
	}
}

func runningTwin() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps-x", Name: "web-0",
		Labels:      map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"},
		Annotations: map[string]string{LocalPodUIDAnnotation: "uid-1"}},
		Spec:   corev1.PodSpec{NodeName: "milan-worker-1", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.65.0.7"}}
}

func TestStatusReportsCarryTheLocalMetadataAndTheProvidersStatusButNoSpec(t *testing.T) {
	g := NewWithT(t)
	var emitted []*corev1.Pod
	h := &Handler{ClusterName: "milan"}
	h.notify = func(p *corev1.Pod) { emitted = append(emitted, p.DeepCopy()) }
	local := footprintPod()
	h.remember(local)

	h.emit(h.localView("apps", keepProviderPod(runningTwin())))
	g.Expect(emitted).To(HaveLen(1))
	got := emitted[0]
	g.Expect(got.Spec).To(Equal(corev1.PodSpec{}), "virtual-kubelet keeps every report; the API server takes the spec from the stored pod")
	g.Expect(got.ObjectMeta).To(Equal(local.ObjectMeta), "pods/status writes labels, annotations and finalizers as sent")
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning))
	g.Expect(got.Status.Conditions).To(ContainElement(local.Status.Conditions[0]), "the local scheduling condition is kept")

	// The deletion report is a status report too, and still releases the pod.
	deleting := local.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: metav1.Unix(200, 0).Time}
	h.remember(deleting)
	h.reportGone("apps", "web-0", "")
	g.Expect(emitted).To(HaveLen(2))
	g.Expect(emitted[1].Spec).To(Equal(corev1.PodSpec{}))
	g.Expect(emitted[1].DeletionTimestamp).NotTo(BeNil())
	g.Expect(emitted[1].Status.Phase).To(Equal(corev1.PodSucceeded))
}

func TestTheHandlerKeepsMetadataAndSchedulingOfALocalPodNotItsSpec(t *testing.T) {
	g := NewWithT(t)
	h := &Handler{ClusterName: "milan"}
	local := footprintPod()
	local.Status.Conditions = append(local.Status.Conditions, corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse})
	h.remember(local)
	kept := h.remembered("apps", "web-0")
	g.Expect(kept.ObjectMeta).To(Equal(local.ObjectMeta))
	g.Expect(kept.scheduled).To(Equal(local.Status.Conditions[0]))
	g.Expect(kept.status).To(BeNil(), "a running pod's reports carry the provider's status, not this one")
	g.Expect(local.Spec.Containers).To(HaveLen(1), "the caller's pod is not modified")

	// Not the cache's object: what is kept is a copy, untouched by changes
	// to the caller's pod.
	local.Labels["app"] = "changed"
	g.Expect(kept.Labels).To(HaveKeyWithValue("app", "web"))

	// A pod being deleted keeps its whole status, which the report that
	// releases it starts from (reportGone).
	deleting := footprintPod()
	deleting.DeletionTimestamp = &metav1.Time{Time: metav1.Unix(200, 0).Time}
	h.remember(deleting)
	g.Expect(h.remembered("apps", "web-0").status).To(Equal(&deleting.Status))
}

func TestTheHandlerSharesTheMetadataOfTheCachesOwnVersion(t *testing.T) {
	g := NewWithT(t)
	cached := footprintPod()
	cached.ResourceVersion = "7"
	index := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{})
	g.Expect(index.Add(cached)).To(Succeed())
	h := &Handler{ClusterName: "milan", PodIndex: index}

	// virtual-kubelet hands CreatePod its own copy of the cached version.
	h.remember(cached.DeepCopy())
	kept := h.remembered("apps", "web-0")
	g.Expect(reflect.ValueOf(kept.Labels).UnsafePointer()).To(Equal(reflect.ValueOf(cached.Labels).UnsafePointer()),
		"the labels are the cache's map, not a copy")
	g.Expect(reflect.ValueOf(kept.Annotations).UnsafePointer()).To(Equal(reflect.ValueOf(cached.Annotations).UnsafePointer()))
	g.Expect(kept.ObjectMeta).To(Equal(cached.ObjectMeta))

	// Another version than the cache's is copied.
	newer := cached.DeepCopy()
	newer.ResourceVersion = "8"
	h.remember(newer)
	g.Expect(reflect.ValueOf(h.remembered("apps", "web-0").Labels).UnsafePointer()).NotTo(Equal(reflect.ValueOf(cached.Labels).UnsafePointer()))
	g.Expect(h.remembered("apps", "web-0").ResourceVersion).To(Equal("8"))
}

func TestReportsBuiltOnAKeptPodShareNothingWithTheCache(t *testing.T) {
	g := NewWithT(t)
	cached := footprintPod()
	cached.ResourceVersion = "7"
	cached.DeletionTimestamp = &metav1.Time{Time: metav1.Unix(200, 0).Time}
	cached.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", Ready: true, RestartCount: 2}}
	index := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, toolscache.Indexers{})
	g.Expect(index.Add(cached)).To(Succeed())
	pristine := cached.DeepCopy()
	var emitted []*corev1.Pod
	h := &Handler{ClusterName: "milan", PodIndex: index}
	h.notify = func(p *corev1.Pod) { emitted = append(emitted, p) }
	h.remember(cached.DeepCopy())

	// virtual-kubelet copies what it keeps, but a report is the caller's to
	// modify: changing one leaves the cache's pod as it was.
	view := h.localView("apps", keepProviderPod(runningTwin()))
	view.Labels["app"], view.Annotations["note"] = "changed", "changed"
	view.Finalizers[0] = "changed"
	h.reportGone("apps", "web-0", "")
	g.Expect(emitted).To(HaveLen(1))
	gone := emitted[0]
	g.Expect(gone.Status.ContainerStatuses).To(Equal(pristine.Status.ContainerStatuses),
		"the report that releases a deleted pod starts from its whole kept status")
	gone.Labels["app"] = "changed"
	gone.Status.ContainerStatuses[0].Ready = false
	g.Expect(cached).To(Equal(pristine), "nothing reaches the cache's object")

	// Another pod of the same name and version in the cache lends nothing.
	other := footprintPod()
	other.UID, other.ResourceVersion = "uid-2", "7"
	g.Expect(index.Update(other)).To(Succeed())
	src, shared := h.cachedVersion(cached)
	g.Expect(shared).To(BeFalse())
	g.Expect(src).To(BeIdenticalTo(cached))
}

func TestGetPodShowsTheLocalSpecOfTheSamePodOnly(t *testing.T) {
	g := NewWithT(t)
	local := footprintPod()
	h := &Handler{ClusterName: "milan", LocalClusterID: "rome-id",
		Twins: &TwinWatcher{Provider: kubefake.NewClientset(runningTwin()), LocalClusterID: "rome-id"}}
	h.Twins.Watch("apps-x", "apps")
	t.Cleanup(h.Twins.Stop)
	g.Eventually(func() bool { _, ok := h.Twins.Get("apps", "web-0"); return ok }).WithTimeout(5 * time.Second).Should(BeTrue())
	h.remember(local)
	ctx := context.Background()

	// virtual-kubelet compares it with the local pod: equal, so no UpdatePod.
	h.LocalPods = fake.NewClientBuilder().WithObjects(local.DeepCopy()).Build()
	got, err := h.GetPod(ctx, "apps", "web-0")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Spec.Containers).To(Equal(local.Spec.Containers))
	g.Expect(got.Spec.Tolerations).To(Equal(local.Spec.Tolerations))
	g.Expect(got.Labels).To(Equal(local.Labels))
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning), "the status is the provider's")

	// A cache that misses the pod lends the view nothing: virtual-kubelet
	// then calls UpdatePod, which is idempotent.
	h.LocalPods = fake.NewClientBuilder().Build()
	got, err = h.GetPod(ctx, "apps", "web-0")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Spec.Containers).To(BeEmpty())

	// The status alone reads no cache.
	h.LocalPods = nil
	st, err := h.GetPodStatus(ctx, "apps", "web-0")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(st.Phase).To(Equal(corev1.PodRunning))
}

// benchPod is a pod as the lab's pod benchmark runs it, read back from rome
// while it ran on the virtual node (metadata, the admission plugins' spec
// additions, milan's status as reported): what each kept copy holds.
func benchPod(tb testing.TB) *corev1.Pod {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "offloaded-bench-pod.json"))
	if err != nil {
		tb.Fatal(err)
	}
	p := &corev1.Pod{}
	if err := json.Unmarshal(data, p); err != nil {
		tb.Fatal(err)
	}
	p.ManagedFields = nil // the caches strip them
	return p
}

// BenchmarkKeptCopyPerPod measures the bytes each kept copy of an offloaded
// pod costs (B/op: every byte a copy allocates is held while the pod runs):
// the handler's copy (remember, from virtual-kubelet's copy of a pod or from
// the cache's object) and virtual-kubelet's copy of the last
// status report (its NotifyPods callback deep-copies what it is handed),
// whole pods before issue 17's lever 6, without the spec after.
//
//	go test -run '^$' -bench KeptCopyPerPod -benchmem ./reflectors/pod/
func BenchmarkKeptCopyPerPod(b *testing.B) {
	pod := benchPod(b)
	for _, c := range []struct {
		name string
		copy func(*corev1.Pod) any
	}{
		{"whole pod", func(p *corev1.Pod) any { return p.DeepCopy() }},
		{"handler, from a copy", func(p *corev1.Pod) any { return keepPod(p, false) }},
		{"handler, from the cache", func(p *corev1.Pod) any { return keepPod(p, true) }},
		{"virtual-kubelet, status report", func(p *corev1.Pod) any { return statusReport(p).DeepCopy() }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = c.copy(pod)
			}
		})
	}
}

func TestKeptCopiesAreSmallerThanTheWholePod(t *testing.T) {
	g := NewWithT(t)
	pod := benchPod(t)
	whole := testing.AllocsPerRun(10, func() { _ = pod.DeepCopy() })
	kept := testing.AllocsPerRun(10, func() { _ = keepPod(pod, false) })
	report := testing.AllocsPerRun(10, func() { _ = statusReport(pod).DeepCopy() })
	g.Expect(kept).To(BeNumerically("<", whole), "the handler's copy leaves the spec out")
	g.Expect(report).To(BeNumerically("<", whole), "virtual-kubelet's copy leaves the spec out")
	shared := testing.AllocsPerRun(10, func() { _ = keepPod(pod, true) })
	g.Expect(shared).To(BeNumerically("==", 1), "kept from the cache's object, only the kept struct is new")
}
