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

package event

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// providerEvent is a provider's event about a pod with every field an API
// server fills in.
func providerEvent() *corev1.Event {
	at := metav1.NewTime(time.Date(2026, 11, 28, 19, 0, 0, 0, time.UTC))
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps-rome-1a2b3c", Name: "web-0.18a", UID: "ev-uid", ResourceVersion: "42",
			Labels: map[string]string{"a": "b"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler"}}},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "apps-rome-1a2b3c", Name: "web-0", UID: "milan-pod-uid",
			ResourceVersion: "7", FieldPath: "spec.containers{web}"},
		Reason: "BackOff", Message: "Back-off pulling image", Type: corev1.EventTypeWarning, Count: 3,
		FirstTimestamp: at, LastTimestamp: at, EventTime: metav1.NewMicroTime(at.Time),
		Source:              corev1.EventSource{Component: "kubelet", Host: "milan-worker-1"},
		ReportingController: "kubelet", ReportingInstance: "milan-worker-1",
	}
}

func localPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: "rome-pod-uid"}, Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
}

func TestTheWatchOfProviderEventsKeepsWhatACopyIsMadeOf(t *testing.T) {
	g := NewWithT(t)
	full := providerEvent()
	kept, err := remoteEventFootprint(full.DeepCopy())
	g.Expect(err).NotTo(HaveOccurred())
	held, ok := kept.(*remoteEvent)
	g.Expect(ok).To(BeTrue(), "the watch holds its own type, not a 640 B Event struct")
	g.Expect(held.copyFor(localPod(), "milan")).To(Equal(LocalEvent(full, localPod(), "milan")))
	g.Expect(held.aboutPod).To(BeTrue(), "sync skips events about anything else")

	key, err := toolscache.MetaNamespaceKeyFunc(held)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(key).To(Equal("apps-rome-1a2b3c/web-0.18a"))
	m, err := meta.Accessor(held)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.GetResourceVersion()).To(Equal("42"), "the store tracks it, and an unchanged one is not an update")
}

func TestAnEventsCopyTakesItsTimesToTheSecond(t *testing.T) {
	g := NewWithT(t)
	remote := providerEvent()
	remote.FirstTimestamp, remote.LastTimestamp, remote.Count = metav1.Time{}, metav1.Time{}, 0
	remote.EventTime = metav1.NewMicroTime(time.Date(2026, 11, 29, 4, 0, 0, 123456000, time.UTC))
	got := footprintOf(remote).copyFor(localPod(), "milan")
	g.Expect(got.FirstTimestamp.Time).To(Equal(time.Date(2026, 11, 29, 4, 0, 0, 0, time.UTC)))
	g.Expect(got.LastTimestamp).To(Equal(got.FirstTimestamp))
	g.Expect(got.Count).To(Equal(int32(1)))
}

// TestATwinsWatchHoldsProviderEventsAsTheirFootprint runs client-go's
// informer over a fake provider: its store must take the footprint type,
// key it and hand it to the handler.
func TestATwinsWatchHoldsProviderEventsAsTheirFootprint(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	provider := kubefake.NewClientset(providerEvent())
	r := &Reflector{Provider: provider,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName]())}
	defer r.queue.ShutDown()
	f := informers.NewSharedInformerFactoryWithOptions(provider, 0, informers.WithNamespace("apps-rome-1a2b3c"),
		informers.WithTransform(remoteEventFootprint))
	inf := f.Core().V1().Events().Informer()
	_, _ = inf.AddEventHandler(r.enqueueEvents())
	go inf.Run(ctx.Done())
	g.Eventually(r.queue.Len).WithTimeout(10 * time.Second).Should(Equal(1))
	key, _ := r.queue.Get()
	g.Expect(key).To(Equal(types.NamespacedName{Namespace: "apps-rome-1a2b3c", Name: "web-0.18a"}))
	o, exists, err := inf.GetStore().GetByKey(key.String())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(exists).To(BeTrue())
	g.Expect(o).To(BeAssignableToTypeOf(&remoteEvent{}))
}
