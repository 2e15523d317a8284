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

package virtualnode

import (
	"context"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
)

func boundTo(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: name}, Spec: corev1.PodSpec{NodeName: node}}
}

// removals records the handlers removed from a shared informer.
type removals struct {
	toolscache.SharedIndexInformer
	mu      sync.Mutex
	removed []toolscache.ResourceEventHandlerRegistration
}

func (r *removals) RemoveEventHandler(reg toolscache.ResourceEventHandlerRegistration) error {
	r.mu.Lock()
	r.removed = append(r.removed, reg)
	r.mu.Unlock()
	return r.SharedIndexInformer.RemoveEventHandler(reg)
}

// events records what a handler saw, by pod name.
type events struct {
	mu            sync.Mutex
	adds, deletes []string
}

func (e *events) handler() toolscache.ResourceEventHandlerFuncs {
	name := func(o any) string {
		if d, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
			o = d.Obj
		}
		return o.(*corev1.Pod).Name
	}
	return toolscache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { e.mu.Lock(); e.adds = append(e.adds, name(o)); e.mu.Unlock() },
		DeleteFunc: func(o any) {
			e.mu.Lock()
			e.deletes = append(e.deletes, name(o))
			e.mu.Unlock()
		},
	}
}

func (e *events) seen() ([]string, []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.adds...), append([]string(nil), e.deletes...)
}

// To virtual-kubelet the manager's informer of every pod must look like an
// informer of the node's pods: that is what its pod controller was written
// against.
func TestNodePodsLooksLikeAnInformerOfTheNodesPodsOnly(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := kubefake.NewClientset(boundTo("mine", "liqo-milan"), boundTo("theirs", "worker-1"), boundTo("unbound", ""))
	factory := informers.NewSharedInformerFactory(cs, 0)
	all := &removals{SharedIndexInformer: factory.Core().V1().Pods().Informer()}
	factory.Start(ctx.Done())
	g.Expect(toolscache.WaitForCacheSync(ctx.Done(), all.HasSynced)).To(BeTrue())

	np := newNodePods(all, "liqo-milan")
	lister := np.Lister()
	got, err := lister.Pods("apps").Get("mine")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Name).To(Equal("mine"))
	_, err = lister.Pods("apps").Get("theirs")
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a pod of that name bound elsewhere is not the node's")
	listed, err := lister.List(labels.Everything())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(listed).To(HaveLen(1))
	listed, err = lister.Pods("apps").List(labels.Everything())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(listed).To(HaveLen(1))

	seen := &events{}
	reg, err := np.Informer().AddEventHandler(seen.handler())
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() []string { adds, _ := seen.seen(); return adds }).WithTimeout(5 * time.Second).Should(Equal([]string{"mine"}))

	// The scheduler binds a pod to the node: for the node it is a new pod.
	bound := boundTo("unbound", "liqo-milan")
	_, err = cs.CoreV1().Pods("apps").Update(ctx, bound, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Eventually(func() []string { adds, _ := seen.seen(); return adds }).WithTimeout(5 * time.Second).Should(Equal([]string{"mine", "unbound"}))

	// Deletions of other nodes' pods are not the node's; events reach one
	// handler in order, so a leaked one would come first.
	g.Expect(cs.CoreV1().Pods("apps").Delete(ctx, "theirs", metav1.DeleteOptions{})).To(Succeed())
	g.Expect(cs.CoreV1().Pods("apps").Delete(ctx, "mine", metav1.DeleteOptions{})).To(Succeed())
	g.Eventually(func() []string { _, deletes := seen.seen(); return deletes }).WithTimeout(5 * time.Second).Should(Equal([]string{"mine"}))

	// The shared informer outlives the node: its handlers go with it.
	np.release()
	all.mu.Lock()
	g.Expect(all.removed).To(HaveLen(1))
	g.Expect(all.removed[0]).To(BeIdenticalTo(reg))
	all.mu.Unlock()
}

// A deletion the informer missed (a relist found the pod gone) still reaches
// the node when the last known state was on it.
func TestNodePodsPassesTombstonesOfItsPods(t *testing.T) {
	np := newNodePods(nil, "liqo-milan")
	if !np.onNode(toolscache.DeletedFinalStateUnknown{Key: "apps/mine", Obj: boundTo("mine", "liqo-milan")}) {
		t.Error("the tombstone of the node's pod is filtered out")
	}
	if np.onNode(toolscache.DeletedFinalStateUnknown{Key: "apps/theirs", Obj: boundTo("theirs", "worker-1")}) {
		t.Error("the tombstone of another node's pod passes")
	}
}
