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

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

func scheduledLocally() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(100, 0)}}}}
}

func TestKeepLocalSchedulingHidesTheProvidersBindingButNotItsFailure(t *testing.T) {
	g := NewWithT(t)
	local := scheduledLocally()
	// A fresh remote pod has no condition: the local one stays scheduled.
	st := corev1.PodStatus{Phase: corev1.PodPending}
	keepLocalScheduling(&st, local.Status.Conditions[0])
	g.Expect(st.Conditions).To(Equal(local.Status.Conditions))
	// The provider bound it: same view as before, so nothing to write.
	bound := corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(200, 0)}}}
	keepLocalScheduling(&bound, local.Status.Conditions[0])
	g.Expect(bound).To(Equal(st))
	// The provider cannot schedule it: the consumer must see why.
	failed := corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: "Unschedulable", Message: "0/2 nodes are available"}}}
	keepLocalScheduling(&failed, local.Status.Conditions[0])
	g.Expect(failed.Conditions[0].Reason).To(Equal("Unschedulable"))
}

func TestEmitIfChangedSkipsOnlyWhatTheLocalPodAlreadyShows(t *testing.T) {
	g := NewWithT(t)
	local := scheduledLocally()
	h := &Handler{LocalPods: fake.NewClientBuilder().WithObjects(local).Build()}
	var emitted []corev1.PodPhase
	h.notify = func(p *corev1.Pod) { emitted = append(emitted, p.Status.Phase) }

	same := local.DeepCopy()
	h.emitIfChanged(same)
	g.Expect(emitted).To(BeEmpty(), "the local pod already shows this status")

	running := local.DeepCopy()
	running.Status.Phase = corev1.PodRunning
	h.emitIfChanged(running)
	g.Expect(emitted).To(Equal([]corev1.PodPhase{corev1.PodRunning}))

	// A pod the cache does not hold is always reported.
	other := running.DeepCopy()
	other.Name = "not-cached"
	h.emitIfChanged(other)
	g.Expect(emitted).To(HaveLen(2))
}

// virtualNodeIP is the virtual node's InternalIP, the host IP local pods show.
const virtualNodeIP = "10.0.0.9"

// boundLocally is the local pod as virtual-kubelet first sees it: bound to
// the virtual node by the local scheduler, its QoS class set by the API server.
func boundLocally() *corev1.Pod {
	p := scheduledLocally()
	p.UID = "local-uid"
	p.Status.QOSClass = corev1.PodQOSBestEffort
	return p
}

// providerPodAt is the provider's pod at one step of its life, as the
// provider's API server, scheduler and kubelet (kwok in the lab) leave it and
// the TwinWatcher keeps it.
func providerPodAt(step string) *providerPod {
	p := &providerPod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo-twin", Name: "web",
		Annotations: map[string]string{LocalPodUIDAnnotation: "local-uid"}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort}}
	scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Unix(200, 0)}
	onHost := func(phase corev1.PodPhase, state corev1.ContainerState, ready corev1.ConditionStatus) {
		p.Status.Phase, p.Status.HostIP, p.Status.HostIPs = phase, "10.1.2.3", []corev1.HostIP{{IP: "10.1.2.3"}}
		p.Status.StartTime = ptrTime(metav1.Unix(201, 0))
		p.Status.Conditions = []corev1.PodCondition{scheduled,
			{Type: corev1.PodReady, Status: ready, LastTransitionTime: metav1.Unix(202, 0)}}
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", State: state, Ready: ready == corev1.ConditionTrue}}
	}
	switch step {
	case "created": // by the provider's ShadowPod controller: no node, no kubelet yet
	case "bound":
		p.Status.Conditions = []corev1.PodCondition{scheduled}
	case "unschedulable":
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available"}}
	case "pulling":
		onHost(corev1.PodPending, corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}, corev1.ConditionFalse)
	case "running":
		onHost(corev1.PodRunning, corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Unix(202, 0)}}, corev1.ConditionTrue)
		p.Status.PodIP, p.Status.PodIPs = "10.65.0.7", []corev1.PodIP{{IP: "10.65.0.7"}}
	case "succeeded":
		onHost(corev1.PodSucceeded, corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}, corev1.ConditionFalse)
	default:
		panic("unknown step " + step)
	}
	return p
}

func ptrTime(t metav1.Time) *metav1.Time { return &t }

// statusHandler is a handler running the local pod, whose cache holds it as
// the local API server does, and which records every status it reports.
func statusHandler(local *corev1.Pod) (*Handler, client.Client, *[]corev1.PodStatus) {
	c := fake.NewClientBuilder().WithObjects(local).WithStatusSubresource(&corev1.Pod{}).Build()
	h := &Handler{LocalPods: c, NodeIP: virtualNodeIP}
	h.remember(local)
	var reported []corev1.PodStatus
	h.notify = func(p *corev1.Pod) { reported = append(reported, p.Status) }
	return h, c, &reported
}

// Which of the provider's changes cost the consumer a status write, against
// the local pod as virtual-kubelet first sees it. A provider's pod no kubelet
// has taken yet (created, bound) shows nothing the local pod does not; one
// the provider cannot schedule, or whose kubelet reports anything, does.
func TestProviderChangesReportedAgainstAFreshlyBoundLocalPod(t *testing.T) {
	for step, want := range map[string]bool{
		"created": false, "bound": false,
		"unschedulable": true, "pulling": true, "running": true, "succeeded": true,
	} {
		t.Run(step, func(t *testing.T) {
			g := NewWithT(t)
			h, _, reported := statusHandler(boundLocally())
			h.emitIfChanged(h.localView("demo", providerPodAt(step)))
			if !want {
				g.Expect(*reported).To(BeEmpty(), "the local pod already shows what the provider's pod says")
				return
			}
			g.Expect(*reported).To(HaveLen(1))
			g.Expect((*reported)[0].Phase).To(Equal(providerPodAt(step).Status.Phase))
		})
	}
}

// One status write per phase the pod goes through on the provider, the way
// a kubelet writes them, whatever else the provider changes on the way, and
// each with the virtual node's address once the provider's pod has a host.
func TestOneLocalStatusWritePerProviderPhase(t *testing.T) {
	g := NewWithT(t)
	h, c, reported := statusHandler(boundLocally())
	ctx := context.Background()
	for _, step := range []string{"created", "bound", "running", "running", "succeeded"} {
		before := len(*reported)
		h.emitIfChanged(h.localView("demo", providerPodAt(step)))
		if len(*reported) == before {
			continue
		}
		// virtual-kubelet writes the report; the cache then holds it.
		cur := &corev1.Pod{}
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: "demo", Name: "web"}, cur)).To(Succeed())
		cur.Status = (*reported)[len(*reported)-1]
		g.Expect(c.Status().Update(ctx, cur)).To(Succeed())
	}
	var phases []corev1.PodPhase
	for _, st := range *reported {
		phases = append(phases, st.Phase)
		g.Expect(st.HostIP).To(Equal(virtualNodeIP))
		g.Expect(st.HostIPs).To(Equal([]corev1.HostIP{{IP: virtualNodeIP}}))
		g.Expect(st.Conditions[0].LastTransitionTime).To(Equal(metav1.Unix(100, 0)), "the local scheduler's condition, not the provider's")
	}
	g.Expect(phases).To(Equal([]corev1.PodPhase{corev1.PodRunning, corev1.PodSucceeded}))
}

// The resync's pass holds the local pod as the cache showed it: a status it
// already shows costs no read of the cache, and one it does not show is
// checked against the cache's current pod before it is reported, so a pass
// working from an older copy writes nothing the cache already shows.
func TestEmitIfChangedFromReadsTheCacheOnlyForAStatusTheHeldPodLacks(t *testing.T) {
	g := NewWithT(t)
	local := scheduledLocally()
	local.UID = "uid-local"
	gets := 0
	c := fake.NewClientBuilder().WithObjects(local).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			gets++
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
	h := &Handler{LocalPods: c}
	var emitted []corev1.PodPhase
	h.notify = func(p *corev1.Pod) { emitted = append(emitted, p.Status.Phase) }

	h.emitIfChangedFrom(local, local.DeepCopy())
	g.Expect(gets).To(BeZero(), "the held pod already shows this status")
	g.Expect(emitted).To(BeEmpty())

	// The held copy is older than the cache, which already shows Running.
	cur := local.DeepCopy()
	g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(local), cur)).To(Succeed())
	cur.Status.Phase = corev1.PodRunning
	g.Expect(c.Status().Update(context.Background(), cur)).To(Succeed())
	gets = 0
	running := local.DeepCopy()
	running.Status.Phase = corev1.PodRunning
	h.emitIfChangedFrom(local, running)
	g.Expect(gets).To(Equal(1))
	g.Expect(emitted).To(BeEmpty(), "the cache already shows Running")

	succeeded := local.DeepCopy()
	succeeded.Status.Phase = corev1.PodSucceeded
	h.emitIfChangedFrom(local, succeeded)
	g.Expect(emitted).To(Equal([]corev1.PodPhase{corev1.PodSucceeded}))
}
