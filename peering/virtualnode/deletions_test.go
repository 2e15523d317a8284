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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	kubefake "k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
)

// deletionRecorder is a PodHandler that is a DeletionObserver.
type deletionRecorder struct {
	PodHandler
	mu      sync.Mutex
	deleted []string
}

func (d *deletionRecorder) LocalPodDeleted(pod *corev1.Pod) {
	d.mu.Lock()
	d.deleted = append(d.deleted, pod.Name)
	d.mu.Unlock()
}

func (d *deletionRecorder) seen() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.deleted...)
}

// The pod handler learns of a deletion of the node's pods when
// virtual-kubelet does, from the same informer, and of no other pod's.
func TestObserveDeletionsSeesTheNodesDeletedPods(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := kubefake.NewClientset(boundTo("mine", "liqo-milan"), boundTo("theirs", "worker-1"))
	factory := informers.NewSharedInformerFactory(cs, 0)
	all := factory.Core().V1().Pods().Informer()
	factory.Start(ctx.Done())
	g.Expect(toolscache.WaitForCacheSync(ctx.Done(), all.HasSynced)).To(BeTrue())

	rec := &deletionRecorder{}
	np := newNodePods(all, "liqo-milan")
	defer np.release()
	g.Expect(observeDeletions(np, rec)).To(Succeed())
	for _, name := range []string{"theirs", "mine"} {
		g.Expect(cs.CoreV1().Pods("apps").Delete(ctx, name, metav1.DeleteOptions{})).To(Succeed())
	}
	g.Eventually(rec.seen).WithTimeout(5 * time.Second).Should(Equal([]string{"mine"}))
	g.Consistently(rec.seen).WithTimeout(100 * time.Millisecond).Should(Equal([]string{"mine"}))
}

// A tombstone (a deletion inferred from a relist) is not handed on:
// virtual-kubelet does not call DeletePod for it, so the handler must not
// wait for DeletePod.
func TestObserveDeletionsSkipsTombstones(t *testing.T) {
	rec := &deletionRecorder{}
	h := deletionHandler(rec)
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "apps/mine", Obj: boundTo("mine", "liqo-milan")})
	h.OnDelete(boundTo("gone", "liqo-milan"))
	if got := rec.seen(); len(got) != 1 || got[0] != "gone" {
		t.Errorf("deletions handed on: %v, want [gone]", got)
	}
}
