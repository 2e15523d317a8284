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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func TestLeaveToCreatePod(t *testing.T) {
	const interval = 10 * time.Second
	never := 1000 * time.Hour
	for _, tt := range []struct {
		name                       string
		sinceBound, sinceCreatePod time.Duration
		want                       bool
	}{
		{"bound within the interval, CreatePod never called", 3 * time.Second, never, true},
		{"bound earlier, the queue still draining", time.Minute, 2 * time.Second, true},
		{"bound earlier, the queue idle", time.Minute, never, false},
		{"bound past the patience, the queue still draining", createPodPatience + time.Second, time.Second, false},
	} {
		if got := leaveToCreatePod(tt.sinceBound, tt.sinceCreatePod, interval); got != tt.want {
			t.Errorf("%s: leaveToCreatePod = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A pass of the resync leaves to virtual-kubelet's queue a pod the queue has
// not handed to the handler yet: no read of the provider, no ShadowPod. The
// pods whose ShadowPod is really missing still get one: one the queue
// handed (its ShadowPod deleted since), one that ran, and one bound long ago
// while the queue is idle.
func TestResyncLeavesToTheQueueThePodsItHasNotHandedYet(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	now := time.Now()
	bound := func(name string, ago time.Duration) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: types.UID("uid-" + name)},
			Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
				Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-ago))}}}}
	}
	queued, handed, ran, stuck := bound("queued", time.Second), bound("handed", time.Second), bound("ran", time.Second), bound("stuck", time.Hour)
	ran.Status.Phase = corev1.PodRunning
	reads, creates := map[string]int{}, map[string]int{}
	remote := fake.NewClientBuilder().WithScheme(s).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			reads[key.Name]++
			return c.Get(ctx, key, obj, opts...)
		},
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			creates[obj.GetName()]++
			return c.Create(ctx, obj, opts...)
		},
	}).Build()
	pods := []client.Object{queued, handed, ran, stuck}
	localCache := fake.NewClientBuilder().WithScheme(s).WithObjects(pods...).Build()
	localAPI := kubefake.NewClientset(queued, handed, ran, stuck)
	h := handlerWatchingShadowPods(t, remote)
	h.remember(handed) // CreatePod had it; its ShadowPod has gone since

	h.resync(context.Background(), localCache, localAPI.CoreV1(), time.Minute)
	g.Expect(reads["queued"]).To(BeZero(), "the provider was asked for the ShadowPod of a pod the queue has yet to create")
	g.Expect(creates["queued"]).To(BeZero(), "the resync wrote the ShadowPod of a pod the queue has yet to create")
	for _, p := range []*corev1.Pod{handed, ran, stuck} {
		g.Expect(creates[p.Name]).To(Equal(1), "%s's missing ShadowPod is written again", p.Name)
	}
}

// A live pod whose ShadowPod records it, but whose pod the provider has yet
// to create (its ShadowPod controller's queue runs seconds behind under
// load): a resync pass has nothing to write. It read the pod from the local
// API server and wrote the ShadowPod again, which the provider answered
// AlreadyExists after its webhooks had run, then read the ShadowPod (issue
// 17: 0.03 such creates per pod at 1,000 pods, at 20/s).
func TestResyncWritesNothingForAPodTheProviderHasYetToCreate(t *testing.T) {
	g := NewWithT(t)
	m := newMassDeletion(t, 1)
	live := m.pods[0].DeepCopy()
	live.DeletionTimestamp = nil
	m.h.forget(live) // the fixture remembered it being deleted
	m.h.remember(live)
	m.cache = fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithObjects(live.DeepCopy()).Build()
	g.Expect(m.localAPI.Tracker().Add(live.DeepCopy())).To(Succeed())
	m.removeProviderPod(t, live.Name)

	m.resync(time.Minute)
	g.Expect(m.remoteCreates).To(BeZero(), "its ShadowPod exists and is its own")
	g.Expect(m.localGets).To(BeZero(), "no write, so no read to confirm one")
	g.Expect(m.remoteGets).To(BeZero())
	g.Expect(m.deletes).To(BeEmpty())
	g.Expect(m.h.remembered(live.Namespace, live.Name).UID).To(Equal(live.UID))

	// A ShadowPod that records no local pod (written before UIDs were) is
	// still written again, which adopts it.
	sp := &virtualkubeletv1alpha1.ShadowPod{}
	g.Expect(m.remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: live.Name}, sp)).To(Succeed())
	sp.Annotations = nil
	g.Expect(m.remote.Update(context.Background(), sp)).To(Succeed())
	m.resync(time.Minute)
	g.Expect(m.remoteCreates).To(Equal(1), "written again")
	g.Expect(m.remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: live.Name}, sp)).To(Succeed())
	g.Expect(sp.Annotations).To(HaveKeyWithValue(LocalPodUIDAnnotation, string(live.UID)), "and adopted")
}

// A label change of a running pod reaches its ShadowPod by an update: no
// create, which the provider refused as existing only after its admission
// had run, then a read (issue 17, lever 36). The watches say whose the
// ShadowPod is, by the ShadowPod itself or by the provider's pod it made;
// one deleted since they saw it is created again.
func TestUpdatePodUpdatesTheShadowPodTheWatchShows(t *testing.T) {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	relabelled := func(p *corev1.Pod) *corev1.Pod {
		p = p.DeepCopy()
		p.DeletionTimestamp = nil
		p.Labels = map[string]string{"tier": "web"}
		return p
	}
	labelsOf := func(g Gomega, c client.Client, name string) map[string]string {
		sp := &virtualkubeletv1alpha1.ShadowPod{}
		g.Expect(c.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: name}, sp)).To(Succeed())
		return sp.Labels
	}

	t.Run("the watched ShadowPod", func(t *testing.T) {
		g := NewWithT(t)
		pod := relabelled(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "uid-web"},
			Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}})
		sp := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: "web", UID: "sp-web",
			Labels:      map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"},
			Annotations: map[string]string{LocalPodUIDAnnotation: "uid-web"}}}
		creates := 0
		remote := fake.NewClientBuilder().WithScheme(s).WithObjects(sp).WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
				creates++
				return c.Create(ctx, obj, opts...)
			},
		}).Build()
		h := handlerWatchingShadowPods(t, remote, &metav1.PartialObjectMetadata{TypeMeta: shadowPodKind, ObjectMeta: sp.ObjectMeta})

		g.Expect(h.UpdatePod(context.Background(), pod)).To(Succeed())
		g.Expect(creates).To(BeZero(), "a create for a ShadowPod the watch shows as the pod's own")
		g.Expect(labelsOf(g, remote, "web")).To(HaveKeyWithValue("tier", "web"), "the label change reached the ShadowPod")
		g.Expect(h.isRetrying(pod.Namespace, pod.Name)).To(BeFalse(), "the write failed")
	})

	t.Run("the watched provider pod, and its ShadowPod deleted since", func(t *testing.T) {
		g := NewWithT(t)
		m := newMassDeletion(t, 1)
		pod := relabelled(m.pods[0])

		g.Expect(m.h.UpdatePod(context.Background(), pod)).To(Succeed())
		g.Expect(m.remoteCreates).To(BeZero(), "a create for a ShadowPod whose provider pod records the pod")
		g.Expect(m.remoteGets).To(Equal(1), "the one read adopt decides from")
		g.Expect(labelsOf(g, m.remote, pod.Name)).To(HaveKeyWithValue("tier", "web"))

		g.Expect(m.remote.Delete(context.Background(), &virtualkubeletv1alpha1.ShadowPod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "demo-rome", Name: pod.Name}})).To(Succeed())
		g.Expect(m.h.UpdatePod(context.Background(), pod)).To(Succeed())
		g.Expect(m.remoteCreates).To(Equal(1), "the ShadowPod the watch still showed is created again")
		g.Expect(labelsOf(g, m.remote, pod.Name)).To(HaveKeyWithValue("tier", "web"))
		g.Expect(m.h.isRetrying(pod.Namespace, pod.Name)).To(BeFalse(), "the write failed")
	})
}
