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

package shadowpod

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// usageOf counts the ShadowPods among objs, as the informer's first list would.
func usageOf(objs ...client.Object) *Usage {
	u := &Usage{}
	for _, o := range objs {
		if sp, ok := o.(*virtualkubeletv1alpha1.ShadowPod); ok {
			u.Observe(sp)
		}
	}
	return u
}

func seenOnly(keys ...string) func(string) bool {
	return func(k string) bool {
		for _, s := range keys {
			if s == k {
				return true
			}
		}
		return false
	}
}

func cpu(list corev1.ResourceList) string {
	q := list[corev1.ResourceCPU]
	return q.String()
}

func withUID(sp *virtualkubeletv1alpha1.ShadowPod, uid string) *virtualkubeletv1alpha1.ShadowPod {
	sp.UID = types.UID(uid)
	return sp
}

func TestUsageSumsTheNamespacesAskedForButTheOneUnderReview(t *testing.T) {
	g := NewWithT(t)
	u := usageOf(withUID(shadowPod("a-rome", "web-1", "1"), "w1"), withUID(shadowPod("b-rome", "db-1", "2"), "d1"),
		withUID(shadowPod("a-naples", "other", "8"), "o1"))
	g.Expect(cpu(u.Sum([]string{"a-rome", "b-rome"}, ""))).To(Equal("3"))
	g.Expect(cpu(u.Sum([]string{"a-rome", "b-rome"}, "d1"))).To(Equal("1"), "an update replaces its own requests")
	g.Expect(cpu(u.Sum([]string{"a-rome"}, "d1"))).To(Equal("1"), "except in another namespace takes nothing off")
	pods := u.Sum([]string{"a-rome", "b-rome"}, "")[corev1.ResourcePods]
	g.Expect(pods.Value()).To(Equal(int64(2)), "each ShadowPod is a pod of the offer")
}

func TestUsageFollowsUpdatesDeletionsAndTheEndOfAPod(t *testing.T) {
	g := NewWithT(t)
	u := &Usage{}
	sp := withUID(shadowPod("a-rome", "web", "1"), "w")
	u.Observe(sp)
	bigger := sp.DeepCopy()
	bigger.Spec.Pod.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1500m")
	u.Observe(bigger)
	g.Expect(cpu(u.Sum([]string{"a-rome"}, ""))).To(Equal("1500m"), "an update replaces the part, it does not add one")

	done := bigger.DeepCopy()
	done.Status.Phase = corev1.PodSucceeded
	u.Observe(done)
	g.Expect(u.Sum([]string{"a-rome"}, "")).To(BeEmpty(), "a pod that ran to completion holds nothing")
	g.Expect(u.seen("w")).To(BeTrue(), "but it is seen: its reservation ends")

	deleting := sp.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	u.Observe(deleting)
	g.Expect(u.Sum([]string{"a-rome"}, "")).To(BeEmpty())

	u.onDelete(toolscache.DeletedFinalStateUnknown{Key: "a-rome/web", Obj: deleting})
	g.Expect(u.seen("w")).To(BeFalse())
	g.Expect(u.namespaces).To(BeEmpty(), "no entry is kept for a namespace with no ShadowPod left")
}

// TestUsageMatchesARecountAfterAnyHistory drives the count through random
// adds, updates, terminations and deletions and compares it, after each
// step, with the sum of what is left computed from scratch: the running
// totals never drift.
func TestUsageMatchesARecountAfterAnyHistory(t *testing.T) {
	g := NewWithT(t)
	rng := rand.New(rand.NewPCG(1, 17))
	u := &Usage{}
	live := map[string]*virtualkubeletv1alpha1.ShadowPod{}
	namespaces := []string{"a-rome", "b-rome"}
	for step := range 2000 {
		key := fmt.Sprintf("sp-%d", rng.IntN(60))
		switch op := rng.IntN(4); {
		case op == 3 && live[key] != nil:
			u.Forget(live[key])
			delete(live, key)
		default:
			sp := withUID(shadowPod(namespaces[rng.IntN(2)], key, fmt.Sprintf("%dm", 1+rng.IntN(2000))), key)
			if old := live[key]; old != nil {
				sp.Namespace = old.Namespace
			}
			if rng.IntN(5) == 0 {
				sp.Status.Phase = corev1.PodFailed
			}
			u.Observe(sp)
			live[key] = sp
		}
		want := corev1.ResourceList{}
		for _, sp := range live {
			policies.AddRequests(want, counted(sp))
		}
		got := u.Sum(namespaces, "")
		for res, q := range want {
			have := got[res]
			g.Expect(have.Cmp(q)).To(BeZero(), "step %d, %s: got %s, want %s", step, res, have.String(), q.String())
		}
		for res, q := range got {
			w := want[res]
			g.Expect(q.Cmp(w)).To(BeZero(), "step %d, %s counted but not there", step, res)
		}
	}
}

// TestAnAdmittedShadowPodIsCountedOnceWhileTheInformerDeliversIt reserves
// admitted ShadowPods and has the informer deliver them while decisions keep
// reading the count: at every moment each one is counted exactly once, by
// the ledger until the count shows it, then by the count. Read as the sums
// and then the ledger, a delivery in between made one vanish from both.
func TestAnAdmittedShadowPodIsCountedOnceWhileTheInformerDeliversIt(t *testing.T) {
	g := NewWithT(t)
	const admitted = 2000
	v := &Validator{Reader: fake.NewClientBuilder().WithScheme(scheme()).WithObjects(twin("a-rome", "rome-id")).Build(), Usage: &Usage{}}
	pods := make([]*virtualkubeletv1alpha1.ShadowPod, admitted)
	for i := range pods {
		pods[i] = withUID(shadowPod("a-rome", fmt.Sprintf("web-%d", i), "100m"), fmt.Sprintf("uid-%d", i))
		v.ledger.reserve("rome-id", admittedKey(pods[i]), policies.PodRequests(&pods[i].Spec.Pod))
	}
	delivered := make(chan struct{})
	go func() {
		defer close(delivered)
		for _, sp := range pods {
			v.Usage.Observe(sp)
			runtime.Gosched()
		}
	}()
	want := resource.MustParse(fmt.Sprintf("%dm", 100*admitted))
	read := func(n int) {
		used, err := v.usedBy(context.Background(), "rome-id", "")
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(cpu(used)).To(Equal(want.String()), "read %d", n)
	}
	reads := 0
	for waiting := true; waiting; reads++ {
		select {
		case <-delivered:
			waiting = false
		default:
		}
		read(reads)
	}
	t.Logf("%d reads while the informer delivered", reads)
	g.Expect(v.ledger.reserved).To(BeEmpty(), "every reservation ends once the count shows its ShadowPod")
}

// seen tells whether the count holds the ShadowPod of admittedKey key.
func (u *Usage) seen(key string) bool {
	u.mu.RLock()
	defer u.mu.RUnlock()
	return u.seenLocked(key)
}
