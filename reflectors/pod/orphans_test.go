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
	"fmt"
	"strconv"
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
	metadatafake "k8s.io/client-go/metadata/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func TestCollectOrphansDeletesOnlyShadowPodsWhoseLocalPodIsGone(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	remotePod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name,
			Labels: map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}}}
	}
	shadow := func(name string) *virtualkubeletv1alpha1.ShadowPod {
		return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name,
			Labels: map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}}}
	}
	provider := kubefake.NewClientset(remotePod("alive"), remotePod("orphan"))
	remote := fake.NewClientBuilder().WithScheme(s).WithObjects(shadow("alive"), shadow("orphan")).Build()
	alive := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "alive"}}
	localCache := fake.NewClientBuilder().WithScheme(s).WithObjects(alive).Build()
	localAPI := kubefake.NewClientset(alive)

	h := &Handler{Remote: remote, LocalClusterID: "rome-id", Twins: &TwinWatcher{Provider: provider, LocalClusterID: "rome-id"}}
	h.Twins.Watch("demo-rome", "demo")
	defer h.Twins.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.CollectOrphans(ctx, localCache, localAPI.CoreV1(), 10*time.Millisecond)

	g.Eventually(func() bool {
		return apierrors.IsNotFound(remote.Get(ctx, client.ObjectKey{Namespace: "demo-rome", Name: "orphan"}, &virtualkubeletv1alpha1.ShadowPod{}))
	}).WithTimeout(5*time.Second).Should(BeTrue(), "the local pod of orphan is gone")
	g.Consistently(func() error {
		return remote.Get(ctx, client.ObjectKey{Namespace: "demo-rome", Name: "alive"}, &virtualkubeletv1alpha1.ShadowPod{})
	}).WithTimeout(200 * time.Millisecond).Should(Succeed())
}

func TestCollectOrphansDeletesNothingWhileTheLocalAPIServerFails(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	provider := kubefake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: "web",
		Labels: map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}}})
	remote := fake.NewClientBuilder().WithScheme(s).WithObjects(&virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: "web",
		Labels: map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}}}).Build()
	down := kubefake.NewClientset()
	down.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("rome's API server is down")
	})
	h := &Handler{Remote: remote, LocalClusterID: "rome-id", Twins: &TwinWatcher{Provider: provider, LocalClusterID: "rome-id"}}
	h.Twins.Watch("demo-rome", "demo")
	defer h.Twins.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.CollectOrphans(ctx, fake.NewClientBuilder().WithScheme(s).Build(), down.CoreV1(), 10*time.Millisecond)
	g.Consistently(func() error {
		return remote.Get(ctx, client.ObjectKey{Namespace: "demo-rome", Name: "web"}, &virtualkubeletv1alpha1.ShadowPod{})
	}).WithTimeout(300*time.Millisecond).Should(Succeed(), "a broken consumer never deletes remote workloads")
}

// A ShadowPod DeletePod is deleting is DeletePod's to finish (it retries): the
// resync leaves it alone, whether its local pod is being deleted or already
// gone from the cache, and still deletes the ShadowPods DeletePod never
// reached.
func TestCollectOrphansLeavesToDeletePodTheShadowPodsItIsDeleting(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	labels := map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}
	remotePod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name, Labels: labels}}
	}
	shadow := func(name string) *virtualkubeletv1alpha1.ShadowPod {
		return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name, Labels: labels,
			UID: types.UID("shadow-" + name), Annotations: map[string]string{LocalPodUIDAnnotation: "uid-" + name}}}
	}
	local := func(name string, terminating bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("uid-" + name)},
			Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
		if terminating {
			p.DeletionTimestamp, p.Finalizers = &metav1.Time{Time: time.Now()}, []string{"test/hold"}
		}
		return p
	}
	// terminating-*: being deleted locally; gone-*: no longer in the cache
	// nor in the local API server.
	names := []string{"terminating-seen", "terminating-unseen", "gone-seen", "gone-unseen"}
	var remotePods []runtime.Object
	var shadows []client.Object
	for _, n := range names {
		remotePods = append(remotePods, remotePod(n))
		shadows = append(shadows, shadow(n))
	}
	provider := kubefake.NewClientset(remotePods...)
	deletes := map[string]int{}
	remote := fake.NewClientBuilder().WithScheme(s).WithObjects(shadows...).
		WithInterceptorFuncs(interceptor.Funcs{Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			deletes[obj.GetName()]++
			return c.Delete(ctx, obj, opts...)
		}}).Build()
	localCache := fake.NewClientBuilder().WithScheme(s).WithObjects(local("terminating-seen", true), local("terminating-unseen", true)).Build()
	localAPI := kubefake.NewClientset(local("terminating-seen", true), local("terminating-unseen", true))

	h := &Handler{Remote: remote, LocalClusterID: "rome-id", ClusterName: "milan", Twins: &TwinWatcher{Provider: provider, LocalClusterID: "rome-id"}}
	// As DeletePod does before its DELETE.
	h.markDeleting(local("terminating-seen", true))
	h.markDeleting(local("gone-seen", true))
	// Remembered, but DeletePod did not reach it (say, the namespace read as
	// not offloaded).
	h.remember(local("terminating-unseen", true))
	h.Twins.Watch("demo-rome", "demo")
	defer h.Twins.Stop()
	g.Eventually(func() bool { return h.Twins.Synced("demo") }).WithTimeout(5 * time.Second).Should(BeTrue())
	h.resync(context.Background(), localCache, localAPI.CoreV1(), time.Second)
	g.Expect(deletes).To(Equal(map[string]int{"terminating-unseen": 1}),
		"DELETEs sent by the first pass: a ShadowPod whose local pod is missing waits for a second")
	h.resync(context.Background(), localCache, localAPI.CoreV1(), time.Second)

	g.Expect(deletes).To(Equal(map[string]int{"terminating-unseen": 1, "gone-unseen": 1}), "DELETEs sent by the resync, by ShadowPod")
	for _, n := range []string{"terminating-seen", "gone-seen"} {
		g.Expect(remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: n}, &virtualkubeletv1alpha1.ShadowPod{})).To(Succeed())
	}
}

// The resync works from a snapshot of the local pods taken at the start of
// its pass; a pod deleted since must not get its ShadowPod written again
// (which restarted it on the provider until the next pass deleted it).
func TestResyncWritesNoShadowPodForAPodDeletedSinceItsSnapshot(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	snapshot := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "uid-web"},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	remote := fake.NewClientBuilder().WithScheme(s).Build()
	h := &Handler{Remote: remote, LocalClusterID: "rome-id", ClusterName: "milan",
		Twins:      &TwinWatcher{Provider: kubefake.NewClientset(), LocalClusterID: "rome-id"},
		Namespaces: func(context.Context, string) (string, error) { return "demo-rome", nil }}
	defer h.Twins.Stop()
	ctx := context.Background()
	created := func() error {
		return remote.Get(ctx, client.ObjectKey{Namespace: "demo-rome", Name: "web"}, &virtualkubeletv1alpha1.ShadowPod{})
	}

	deleted := kubefake.NewClientset()
	h.resyncPod(ctx, deleted.CoreV1(), snapshot)
	g.Expect(apierrors.IsNotFound(created())).To(BeTrue(), "the pod is gone from the local API server: nothing to write")

	replaced := snapshot.DeepCopy()
	replaced.UID = "uid-web-2"
	h.resyncPod(ctx, kubefake.NewClientset(replaced).CoreV1(), snapshot)
	g.Expect(apierrors.IsNotFound(created())).To(BeTrue(), "a newer pod of the name is the virtual kubelet's to write")

	h.resyncPod(ctx, kubefake.NewClientset(snapshot).CoreV1(), snapshot)
	g.Expect(created()).To(Succeed(), "a pod still live gets its missing ShadowPod")
}

// TestCollectOrphansReadsShadowPodsInPagesAsTheAPIServerSendsThem lists the
// ShadowPods as a real API server does: in pages under a continue token, and
// items without a kind (a metadata list decoded from protobuf carries none).
// The orphans on every page are deleted, the live pods' ShadowPods stay and
// none of them is taken as missing.
func TestCollectOrphansReadsShadowPodsInPagesAsTheAPIServerSendsThem(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	origin := map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}
	const n = 2*shadowPodPage + 3
	var shadows, remotePods, locals []client.Object
	for i := range n {
		name := fmt.Sprintf("web-%04d", i)
		shadows = append(shadows, &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name, Labels: origin}})
		remotePods = append(remotePods, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name, Labels: origin}})
		if i%2 == 0 { // the odd ones' local pods are gone
			locals = append(locals, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID(name)},
				Status: corev1.PodStatus{Phase: corev1.PodSucceeded}})
		}
	}
	var continued int
	base := fake.NewClientBuilder().WithScheme(s).WithObjects(shadows...).Build()
	remote := interceptor.NewClient(base, interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if err := c.List(ctx, list, opts...); err != nil {
				return err
			}
			meta, ok := list.(*metav1.PartialObjectMetadataList)
			if !ok {
				return nil
			}
			o := (&client.ListOptions{}).ApplyOptions(opts)
			if o.Continue != "" {
				continued++
			}
			meta.Items, meta.Continue = pageOf(meta.Items, o.Limit, o.Continue)
			for i := range meta.Items {
				meta.Items[i].TypeMeta = metav1.TypeMeta{}
			}
			return nil
		},
	})
	localCache := fake.NewClientBuilder().WithScheme(s).WithObjects(locals...).Build()
	localAPI := kubefake.NewClientset()
	for _, p := range locals {
		g.Expect(localAPI.Tracker().Add(p)).To(Succeed())
	}
	provider := kubefake.NewClientset()
	for _, p := range remotePods {
		g.Expect(provider.Tracker().Add(p)).To(Succeed())
	}
	h := &Handler{Remote: remote, LocalClusterID: "rome-id", Twins: &TwinWatcher{Provider: provider, LocalClusterID: "rome-id"}}
	h.Twins.Watch("demo-rome", "demo")
	defer h.Twins.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go h.CollectOrphans(ctx, localCache, localAPI.CoreV1(), 10*time.Millisecond)

	left := func() []string {
		l := &virtualkubeletv1alpha1.ShadowPodList{}
		g.Expect(base.List(ctx, l)).To(Succeed())
		var names []string
		for _, sp := range l.Items {
			names = append(names, sp.Name)
		}
		return names
	}
	g.Eventually(func() int { return len(left()) }).WithTimeout(10*time.Second).Should(Equal((n+1)/2),
		"the odd pods' ShadowPods, on every page, are deleted")
	for _, name := range left() {
		var i int
		_, err := fmt.Sscanf(name, "web-%d", &i)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(i%2).To(Equal(0), "%s has its local pod", name)
	}
	g.Expect(continued).To(BeNumerically(">", 0), "the ShadowPods are read in pages")
}

// pageOf serves items a page at a time as the API server does: limit items,
// and a continue token naming the next one while items remain.
func pageOf(items []metav1.PartialObjectMetadata, limit int64, next string) ([]metav1.PartialObjectMetadata, string) {
	from := 0
	if next != "" {
		from, _ = strconv.Atoi(next)
	}
	items = items[min(from, len(items)):]
	if limit == 0 || int64(len(items)) <= limit {
		return items, ""
	}
	return items[:limit], strconv.Itoa(from + int(limit))
}

// With the ShadowPods watched (TwinWatcher.Shadows), a pass lists none: it
// deletes the orphans the watch shows, and a live pod whose ShadowPod the
// watch misses gets a new one only when the provider confirms it has none
// (the watch trails a ShadowPod CreatePod has just written).
func TestResyncWorksFromTheWatchedShadowPods(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	origin := map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}
	shadow := func(name string) *virtualkubeletv1alpha1.ShadowPod {
		return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: name, UID: types.UID("sp-" + name),
			Labels: origin, Annotations: map[string]string{LocalPodUIDAnnotation: "uid-" + name}}}
	}
	watched := func(name string) *metav1.PartialObjectMetadata {
		sp := shadow(name)
		return &metav1.PartialObjectMetadata{TypeMeta: shadowPodKind, ObjectMeta: sp.ObjectMeta}
	}
	local := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("uid-" + name)},
			Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	}
	// "orphan": watched, no local pod. "fresh": live, its ShadowPod written
	// but not watched yet. "lost": live, no ShadowPod anywhere. "unlabelled":
	// live, its ShadowPod lost this consumer's origin label, so no watch or
	// list shows it.
	var lists, creates int
	unlabelled := shadow("unlabelled")
	unlabelled.Labels = nil
	remote := fake.NewClientBuilder().WithScheme(s).WithObjects(shadow("orphan"), shadow("fresh"), unlabelled).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			lists++
			return c.List(ctx, list, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			creates++
			return c.Create(ctx, obj, opts...)
		},
	}).Build()
	localCache := fake.NewClientBuilder().WithScheme(s).WithObjects(local("fresh"), local("lost"), local("unlabelled")).Build()
	localAPI := kubefake.NewClientset(local("fresh"), local("lost"), local("unlabelled"))
	h := handlerWatchingShadowPods(t, remote, watched("orphan"))

	for range 2 { // the second pass confirms the orphan with the local API server
		h.resync(context.Background(), localCache, localAPI.CoreV1(), time.Minute)
	}
	g.Expect(lists).To(BeZero(), "ShadowPods listed on the provider")
	g.Expect(apierrors.IsNotFound(remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: "orphan"},
		&virtualkubeletv1alpha1.ShadowPod{}))).To(BeTrue(), "the watched orphan is deleted")
	g.Expect(remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: "lost"}, &virtualkubeletv1alpha1.ShadowPod{})).
		To(Succeed(), "the lost pod's ShadowPod is written again")
	relabelled := &virtualkubeletv1alpha1.ShadowPod{}
	g.Expect(remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: "unlabelled"}, relabelled)).To(Succeed())
	g.Expect(relabelled.Labels).To(HaveKeyWithValue(sharingv1alpha1.OriginClusterIDLabel, "rome-id"), "written again, so relabelled")
	g.Expect(relabelled.UID).To(Equal(unlabelled.UID), "adopted in place, not replaced")
	g.Expect(creates).To(Equal(2), "lost's ShadowPod once (the second pass finds it on the provider) and unlabelled's attempt; none for fresh")
}

// handlerWatchingShadowPods is rome's handler for milan with the twin
// demo → demo-rome watched, its ShadowPods those given (metadata), once the
// watch has listed them; the watch stops with the test.
func handlerWatchingShadowPods(t *testing.T, remote client.Client, shadows ...runtime.Object) *Handler {
	t.Helper()
	metaScheme := metadatafake.NewTestScheme()
	utilruntime.Must(metav1.AddMetaToScheme(metaScheme))
	h := &Handler{Remote: remote, LocalClusterID: "rome-id", ClusterName: "milan",
		Namespaces: func(context.Context, string) (string, error) { return "demo-rome", nil },
		Twins: &TwinWatcher{Provider: kubefake.NewClientset(), LocalClusterID: "rome-id",
			Shadows: metadatafake.NewSimpleMetadataClient(metaScheme, shadows...)}}
	h.Twins.Watch("demo-rome", "demo")
	t.Cleanup(h.Twins.Stop)
	NewWithT(t).Eventually(func() bool { _, ok := h.Twins.ShadowPods("demo", "demo-rome"); return ok }).WithTimeout(5 * time.Second).Should(BeTrue())
	return h
}
