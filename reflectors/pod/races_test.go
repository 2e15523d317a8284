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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// racingHandler is a handler whose provider holds shadows and no pod: the
// resync cannot vouch for a pod from the watch and takes the path that
// reads the pod and writes its ShadowPod.
func racingHandler(t *testing.T, shadows ...client.Object) (*Handler, client.Client) {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	remote := fake.NewClientBuilder().WithScheme(s).WithObjects(shadows...).Build()
	h := &Handler{Remote: remote, LocalClusterID: "rome-id", ClusterName: "milan",
		Twins:      &TwinWatcher{Provider: kubefake.NewClientset(), LocalClusterID: "rome-id"},
		Namespaces: func(context.Context, string) (string, error) { return "demo-rome", nil }}
	t.Cleanup(h.Twins.Stop)
	h.Twins.Watch("demo-rome", "demo")
	NewWithT(t).Eventually(func() bool { return h.Twins.Synced("demo") }).WithTimeout(5 * time.Second).Should(BeTrue())
	return h, remote
}

// racingPod is demo/web live and, a moment later, being deleted.
func racingPod() (live, deleting *corev1.Pod) {
	live = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "uid-web", ResourceVersion: "10"},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	deleting = live.DeepCopy()
	deleting.ResourceVersion, deleting.DeletionTimestamp = "11", &metav1.Time{Time: time.Now()}
	return live, deleting
}

// TestARetryListedBeforeADeletePodWritesNothing: the retry loop lists what
// is due, then writes each; a DeletePod in between stops the pod's retry,
// and the retry must not write the ShadowPod of a pod being deleted (the
// cache it would check may not show the deletion yet).
func TestARetryListedBeforeADeletePodWritesNothing(t *testing.T) {
	g := NewWithT(t)
	h, remote := racingHandler(t)
	live, deleting := racingPod()
	h.retryOnFailure(live, errors.New("the provider did not answer"))
	due := h.due(time.Now().Add(time.Hour))
	g.Expect(due).To(HaveLen(1))
	g.Expect(h.DeletePod(context.Background(), deleting)).To(Succeed())
	h.retryOne(context.Background(), due[0])
	err := remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: "web"}, &virtualkubeletv1alpha1.ShadowPod{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no ShadowPod for a deleted pod: %v", err)
}

// TestADeletePodWaitsForAResyncWriteOfThePodInFlight: the resync pass reads
// the pod live, then writes its ShadowPod. A DeletePod arriving between the
// two must not run in between: done wholly there, it deleted the ShadowPod
// the write then created again, and the provider started a deleted pod.
func TestADeletePodWaitsForAResyncWriteOfThePodInFlight(t *testing.T) {
	g := NewWithT(t)
	h, remote := racingHandler(t, &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "demo-rome", Name: "web", UID: "sp-web",
		Labels:      map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"},
		Annotations: map[string]string{LocalPodUIDAnnotation: "uid-web"}}})
	live, deleting := racingPod()
	local, deleted := deleteOnLiveRead(h, live, deleting)
	h.resyncPod(context.Background(), local.CoreV1(), live)
	g.Expect(<-deleted).To(Succeed())
	err := remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: "web"}, &virtualkubeletv1alpha1.ShadowPod{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the deleted pod's ShadowPod is gone, not written again: %v", err)
}

// deleteOnLiveRead is the local API server holding live: the handler's live
// read of it starts DeletePod(deleting) and answers once DeletePod has
// finished or waits for the pod's lock. deleted gets DeletePod's result.
func deleteOnLiveRead(h *Handler, live, deleting *corev1.Pod) (local *kubefake.Clientset, deleted chan error) {
	waiting := make(chan struct{})
	var once sync.Once
	h.contended = func() { once.Do(func() { close(waiting) }) }
	deleted = make(chan error, 1)
	local = kubefake.NewClientset(live)
	local.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		go func() { deleted <- h.DeletePod(context.Background(), deleting) }()
		select {
		case <-waiting:
		case err := <-deleted:
			deleted <- err
		}
		return false, nil, nil // the live pod, as read just before the deletion
	})
	return local, deleted
}

// TestADeletePodWaitsForTheRecoveryOfAMissingShadowPod: the resync found a
// live pod without a ShadowPod and reads it live before writing one. A
// DeletePod run between the read and the write found nothing to delete, and
// the write then started the deleted pod; DeletePod now waits for the write
// and deletes what it wrote.
func TestADeletePodWaitsForTheRecoveryOfAMissingShadowPod(t *testing.T) {
	g := NewWithT(t)
	h, remote := racingHandler(t)
	live, deleting := racingPod()
	local, deleted := deleteOnLiveRead(h, live, deleting)
	h.recoverMissing(context.Background(), local.CoreV1(), live)
	g.Expect(<-deleted).To(Succeed())
	err := remote.Get(context.Background(), client.ObjectKey{Namespace: "demo-rome", Name: "web"}, &virtualkubeletv1alpha1.ShadowPod{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "no ShadowPod for a deleted pod: %v", err)
}

// TestAnOlderCopyDoesNotUndoARememberedDeletion: a resync pass's snapshot of
// the pod from before DeletePod must not replace the deletion DeletePod
// remembered, or the provider reporting the pod gone would not release it.
func TestAnOlderCopyDoesNotUndoARememberedDeletion(t *testing.T) {
	g := NewWithT(t)
	var reports []*corev1.Pod
	h := &Handler{notify: func(p *corev1.Pod) { reports = append(reports, p) }}
	live := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "uid-web", ResourceVersion: "10"}}
	deleting := live.DeepCopy()
	deleting.ResourceVersion, deleting.DeletionTimestamp = "11", &metav1.Time{Time: time.Now()}
	h.remember(deleting) // DeletePod
	h.remember(live)     // the pass, from its snapshot
	h.reportGone("demo", "web", "")
	g.Expect(reports).To(HaveLen(1), "the provider's pod is gone: the local pod is released at once")
	g.Expect(reports[0].Status.Reason).To(Equal("Deleted"))

	next := live.DeepCopy()
	next.UID = "uid-web-2"
	h.remember(deleting)
	h.remember(next)
	g.Expect(h.remembered("demo", "web").UID).To(BeEquivalentTo("uid-web-2"), "a new pod of the name replaces the deleted one")
}
