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

package resourceoffer

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/cache/informertest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllertest"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// referenceOffer is what an offer to consumerID was before the count: the
// pod-by-pod policies over every pod but consumerID's, as computeOffer
// listed them.
func referenceOffer(offer *sharingv1alpha1.ResourceOffer, nodes []corev1.Node, pods map[string]*corev1.Pod) corev1.ResourceList {
	var others []corev1.Pod
	for _, p := range pods {
		if p.Labels[sharingv1alpha1.OriginClusterIDLabel] != offer.Spec.ClusterID {
			others = append(others, *p)
		}
	}
	free := policies.FreeAllocatable(nodes, others)
	if offer.Spec.Broker {
		free = policies.ResellableFree(nodes, others, offer.Spec.ClusterID)
	}
	offered, _ := policies.ScaleOffer(free, offer.EffectiveSharingPercentage())
	return offered
}

var eventOrigins = []string{"", "rome-id", "paris-id"}

// randomEventPod is a pod with what the count looks at drawn at random:
// node (none, an unknown one, n0 to n2), phase, origin, requests, an init
// container and overhead.
func randomEventPod(rng *rand.Rand, namespace, name string) *corev1.Pod {
	node := []string{"", "n0", "n1", "n2", "gone"}[rng.IntN(5)]
	requests := rl("cpu", fmt.Sprintf("%dm", rng.IntN(3000)), "memory", fmt.Sprintf("%dMi", rng.IntN(4000)))
	if rng.IntN(4) == 0 {
		requests[corev1.ResourceName("nvidia.com/gpu")] = *resource.NewQuantity(rng.Int64N(2), resource.DecimalSI)
	}
	var labels map[string]string
	if origin := eventOrigins[rng.IntN(len(eventOrigins))]; origin != "" {
		labels = map[string]string{sharingv1alpha1.OriginClusterIDLabel: origin}
	}
	p := newPod(namespace, name, node, requests, labels)
	p.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}[rng.IntN(4)]
	if rng.IntN(4) == 0 {
		p.Spec.InitContainers = []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: rl("cpu", fmt.Sprintf("%dm", rng.IntN(5000)))}}}
	}
	if rng.IntN(5) == 0 {
		p.Spec.Overhead = rl("cpu", "100m", "memory", "64Mi")
	}
	return p
}

// mutate changes one thing about p, as an update event would.
func mutate(rng *rand.Rand, p *corev1.Pod) *corev1.Pod {
	q := p.DeepCopy()
	switch rng.IntN(5) {
	case 0: // status noise: nothing an offer counts
		q.Status.PodIP = fmt.Sprintf("10.0.0.%d", rng.IntN(255))
	case 1:
		q.Spec.NodeName = []string{"", "n0", "n1", "n2"}[rng.IntN(4)]
	case 2:
		q.Status.Phase = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed}[rng.IntN(4)]
	case 3: // an in-place resize
		q.Spec.Containers[0].Resources.Requests = rl("cpu", fmt.Sprintf("%dm", rng.IntN(3000)))
	case 4:
		q.Labels = map[string]string{sharingv1alpha1.OriginClusterIDLabel: eventOrigins[rng.IntN(len(eventOrigins))]}
	}
	return q
}

func eventNodes() []corev1.Node {
	virtualNode := providerNode("n2", "turin-id", rl("cpu", "16", "memory", "64Gi", "pods", "50"))
	return []corev1.Node{
		*newNode("n0", rl("cpu", "8", "memory", "32Gi", "pods", "110", "nvidia.com/gpu", "2")),
		*newNode("n1", rl("cpu", "4", "memory", "16Gi", "pods", "30")),
		virtualNode,
	}
}

// After every one of 3,000 random adds, updates and deletions, each offer
// sized from the count equals the offer sized from a recount of the pods
// left; and an event that the count says changed nothing for an offer (so
// the offer is not woken) indeed left that offer as it was.
func TestPodUsageFollowsRandomEventsExactly(t *testing.T) {
	g := NewWithT(t)
	rng := rand.New(rand.NewPCG(12, 17))
	nodes := eventNodes()
	offers := []*sharingv1alpha1.ResourceOffer{
		newOffer("rome", withPercentage(100)), newOffer("paris", withPercentage(90)),
		newOffer("rome", asBroker, withPercentage(100)), newOffer("lisbon", withPercentage(50)),
	}
	var u podUsage
	pods := map[string]*corev1.Pod{}
	before := make([]corev1.ResourceList, len(offers))
	for i, o := range offers {
		before[i] = referenceOffer(o, nodes, pods)
	}
	for step := range 3000 {
		var changed []string
		name := fmt.Sprintf("p%d", rng.IntN(40))
		key := "default/" + name
		switch existing := pods[key]; {
		case existing == nil:
			pods[key] = randomEventPod(rng, "default", name)
			changed = u.observe(key, pods[key])
		case rng.IntN(4) == 0:
			delete(pods, key)
			changed = u.forget(key)
		default:
			pods[key] = mutate(rng, existing)
			changed = u.observe(key, pods[key])
		}
		for i, o := range offers {
			what := fmt.Sprintf("step %d, offer to %s (broker %t)", step, o.Spec.ClusterID, o.Spec.Broker)
			want := referenceOffer(o, nodes, pods)
			got, _ := offeredResources(o, nodes, u.except(o.Spec.ClusterID))
			g.Expect(maps.Collect(quantities(got))).To(Equal(maps.Collect(quantities(want))), what)
			woken := slices.ContainsFunc(changed, func(c string) bool { return c != o.Spec.ClusterID })
			if !woken {
				g.Expect(maps.Collect(quantities(want))).To(Equal(maps.Collect(quantities(before[i]))),
					"%s: the offer changed but the event would not wake it (changed origins %q)", what, changed)
			}
			before[i] = want
		}
	}
	// Everything deleted: nothing left behind.
	for key := range pods {
		u.forget(key)
	}
	g.Expect(u.byNode).To(BeEmpty())
	g.Expect(u.parts).To(BeEmpty())
}

// quantities is a ResourceList as comparable strings (a Quantity's internal
// form may differ for equal amounts).
func quantities(l corev1.ResourceList) func(func(corev1.ResourceName, string) bool) {
	return func(yield func(corev1.ResourceName, string) bool) {
		for name, q := range l {
			if !yield(name, q.String()) {
				return
			}
		}
	}
}

func TestPodUsageReportsOnlyChangesAnOfferCounts(t *testing.T) {
	g := NewWithT(t)
	var u podUsage
	pending := newPod("default", "web", "", rl("cpu", "1"), nil)
	bound := newPod("default", "web", "n1", rl("cpu", "1"), nil)
	g.Expect(u.observe("default/web", pending)).To(BeEmpty(), "an unscheduled pod holds nothing")
	g.Expect(u.observe("default/web", bound)).To(Equal([]string{""}), "scheduled")
	noise := bound.DeepCopy()
	noise.Status.PodIP = "10.0.0.1"
	g.Expect(u.observe("default/web", noise)).To(BeEmpty(), "status noise")
	g.Expect(u.observe("default/web", newPod("default", "web", "n1", rl("cpu", "2"), nil))).To(Equal([]string{""}), "resized")
	relabelled := newPod("default", "web", "n1", rl("cpu", "2"), map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"})
	g.Expect(u.observe("default/web", relabelled)).To(ConsistOf("", "rome-id"), "moved from one origin's count to another's")
	done := relabelled.DeepCopy()
	done.Status.Phase = corev1.PodSucceeded
	g.Expect(u.observe("default/web", done)).To(Equal([]string{"rome-id"}), "completed")
	g.Expect(u.forget("default/web")).To(BeEmpty(), "a done pod's deletion changes nothing")
	g.Expect(u.observe("default/db", bound)).To(Equal([]string{""}))
	g.Expect(u.forget("default/db")).To(Equal([]string{""}))
}

// A pass sizes a percentage offer from the count: it lists nodes, never
// pods, however many run.
func TestAPercentageOfferPassListsNoPods(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer, newNode("n1", rl("cpu", "8")), newPod("default", "web", "n1", rl("cpu", "2"), nil))
	podLists := 0
	e.r.Client = interceptor.NewClient(e.c.(client.WithWatch), interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, list client.ObjectList, opts ...client.ListOption) error {
			if _, ok := list.(*corev1.PodList); ok {
				podLists++
			}
			return c.List(ctx, list, opts...)
		},
	})
	got := e.publish(offer)
	e.g.Expect(got.Status.Offered.Cpu().String()).To(Equal("5400m"), "90% of 8 - 2")
	e.g.Expect(podLists).To(BeZero())
}

// recordingQueue records what AddAfter is given; nothing else is called.
type recordingQueue struct {
	workqueue.TypedRateLimitingInterface[reconcile.Request]
	mu    sync.Mutex
	added []string
}

func (q *recordingQueue) AddAfter(req reconcile.Request, d time.Duration) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.added = append(q.added, fmt.Sprintf("%s after %s", req.Name, d))
}

func (q *recordingQueue) take() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	out := q.added
	q.added = nil
	return out
}

// The source counts from the informer's events, wakes the offers a change
// concerns after the debounce, and holds the workers until its first list.
func TestPodUsageSourceCountsInformerEventsAndWakesTheOffersConcerned(t *testing.T) {
	e := newEnv(t, newOffer("rome"), newOffer("paris"), newOffer("lisbon", withLimits(rl("cpu", "1"))))
	g, ctx := e.g, context.Background()
	inf := controllertest.NewFakeInformer()
	informers := &informertest.FakeInformers{Scheme: testScheme(),
		InformersByGVK: map[schema.GroupVersionKind]toolscache.SharedIndexInformer{corev1.SchemeGroupVersion.WithKind("Pod"): inf}}
	src := &podUsageSource{informers: informers, usage: &e.r.usage, requests: e.r.offersForPodChange}
	q := &recordingQueue{}
	g.Expect(src.Start(ctx, q)).To(Succeed())

	early, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	g.Expect(src.WaitForSync(early)).To(MatchError(ContainSubstring("did not load")), "no worker before the first list")

	own := newPod("default", "web", "n1", rl("cpu", "1"), nil)
	inf.Add(own)
	inf.Synced()
	g.Expect(src.WaitForSync(ctx)).To(Succeed())
	g.Expect(q.take()).To(ConsistOf("rome after 3s", "paris after 3s"))

	fromParis := newPod("liqo-demo-paris", "api", "", rl("cpu", "2"), map[string]string{sharingv1alpha1.OriginClusterIDLabel: "paris-id"})
	inf.Add(fromParis)
	g.Expect(q.take()).To(BeEmpty(), "unbound: it holds nothing yet")
	bound := fromParis.DeepCopy()
	bound.Spec.NodeName = "n1"
	inf.Update(fromParis, bound)
	g.Expect(q.take()).To(ConsistOf("rome after 3s"), "paris's offer leaves paris's pods out")
	running := bound.DeepCopy()
	running.Status.PodIP = "10.0.0.7"
	inf.Update(bound, running)
	g.Expect(q.take()).To(BeEmpty(), "status noise")
	cpuOnN1 := func() string { q := e.r.usage.except("rome-id")["n1"].Requests[corev1.ResourceCPU]; return q.String() }
	g.Expect(cpuOnN1()).To(Equal("3"))

	inf.Delete(running)
	g.Expect(q.take()).To(ConsistOf("rome after 3s"))
	g.Expect(cpuOnN1()).To(Equal("1"))
}

func TestPodUsageSourceForgetsAPodDeletedWhileTheWatchWasDown(t *testing.T) {
	e := newEnv(t, newOffer("rome"))
	g := e.g
	var woken []reconcile.Request
	src := &podUsageSource{usage: &e.r.usage, requests: e.r.offersForPodChange}
	h := src.handler(context.Background(), func(reqs []reconcile.Request) { woken = append(woken, reqs...) })
	pod := newPod("default", "web", "n1", rl("cpu", "1"), nil)
	h.OnAdd(pod, true)
	g.Expect(e.r.usage.except("rome-id")).To(HaveKey("n1"))
	woken = nil
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "default/web", Obj: pod})
	g.Expect(e.r.usage.except("rome-id")).To(BeEmpty())
	g.Expect(woken).To(HaveLen(1))
	h.OnDelete(toolscache.DeletedFinalStateUnknown{Key: "default/gone"})
	g.Expect(woken).To(HaveLen(1), "a pod never counted changes nothing")
}
