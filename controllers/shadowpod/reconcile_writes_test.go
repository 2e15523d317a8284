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
	"encoding/json"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// laggingCache is the controller's client with a ShadowPod cache that has
// not caught up: Get returns the copy frozen by freeze, as an informer that
// has not yet delivered the controller's own status patch would. It counts
// status patches.
type laggingCache struct {
	client.Client
	frozen  *virtualkubeletv1alpha1.ShadowPod
	patches int
}

func (c *laggingCache) freeze(sp *virtualkubeletv1alpha1.ShadowPod) { c.frozen = sp.DeepCopy() }

// freezeStored freezes the cache at sp as it is stored now.
func (c *laggingCache) freezeStored(g Gomega, sp *virtualkubeletv1alpha1.ShadowPod) {
	stored := &virtualkubeletv1alpha1.ShadowPod{}
	g.Expect(c.Client.Get(context.Background(), keyOf(sp), stored)).To(Succeed())
	c.freeze(stored)
}

func (c *laggingCache) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if sp, ok := obj.(*virtualkubeletv1alpha1.ShadowPod); ok && c.frozen != nil && key == client.ObjectKeyFromObject(c.frozen) {
		c.frozen.DeepCopyInto(sp)
		return nil
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c *laggingCache) Status() client.SubResourceWriter {
	return &countingStatus{c.Client.Status(), c}
}

type countingStatus struct {
	client.SubResourceWriter
	c *laggingCache
}

func (s *countingStatus) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
	s.c.patches++
	return s.SubResourceWriter.Patch(ctx, obj, patch, opts...)
}

// newLaggingEnv is env with the reconciler reading through a laggingCache.
func newLaggingEnv(t *testing.T, sp *virtualkubeletv1alpha1.ShadowPod) (*env, *laggingCache) {
	e := newEnv(t, newTwin(), sp)
	lc := &laggingCache{Client: e.c}
	e.r = &ShadowPodReconciler{Client: lc}
	return e, lc
}

func TestAStatusIsNotWrittenTwiceOffACacheThatMissedTheFirstWrite(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp) // creates the pod, which is merely starting: nothing written
	g.Expect(lc.patches).To(BeZero())
	lc.freezeStored(g, sp) // the cache as it was before the first write

	e.kubelet(sp, corev1.PodRunning, true)
	_, got := e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1))
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning))

	// The pod's next event runs a reconcile before the cache has seen the
	// status patch; its conditions get new transition times.
	_, got = e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1), "the status written a moment ago is not written again")
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning))

	// What the pod reports next is written, stale cache or not.
	e.kubelet(sp, corev1.PodRunning, false)
	_, got = e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(2))
	g.Expect(condition(got, meta.ReadyCondition)).To(And(HaveField("Status", metav1.ConditionFalse), HaveField("Reason", PodNotReadyReason)))
}

func TestAStatusSomeoneElseWroteIsRewritten(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp)
	e.kubelet(sp, corev1.PodRunning, true)
	_, got := e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1))

	// A person (or another writer) replaces the status; the cache has it.
	got.Status.Phase = corev1.PodUnknown
	got.Status.Conditions = nil
	g.Expect(e.c.Status().Update(context.Background(), got)).To(Succeed())
	_, got = e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(2), "an edited status is not mistaken for a stale cache")
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning))
	g.Expect(condition(got, meta.ReadyCondition).Reason).To(Equal(PodReadyReason))
}

func TestAPodStatusChangeThatChangesNothingReportedIsNotWritten(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp)
	e.kubelet(sp, corev1.PodRunning, true)
	e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1))

	// The kubelet reports new IPs and a start time: nothing the ShadowPod says.
	pod := e.mustPod(sp)
	pod.Status.PodIP, pod.Status.StartTime = "10.0.0.7", ptrTo(metav1.Now())
	g.Expect(e.c.Status().Update(context.Background(), pod)).To(Succeed())
	e.mustReconcile(sp)
	g.Expect(lc.patches).To(Equal(1))
}

func TestAWriteForAShadowPodOfTheSameNameIsNotAnEcho(t *testing.T) {
	g := NewWithT(t)
	var l lastWrites
	key := keyOf(newShadowPod("web"))
	pending := virtualkubeletv1alpha1.ShadowPodStatus{Phase: corev1.PodPending}
	l.record(key, "first", virtualkubeletv1alpha1.ShadowPodStatus{}, pending)
	g.Expect(l.echoes(key, "first", virtualkubeletv1alpha1.ShadowPodStatus{}, pending)).To(BeTrue())
	g.Expect(l.echoes(key, "second", virtualkubeletv1alpha1.ShadowPodStatus{}, pending)).To(BeFalse(), "a new ShadowPod under the old name")
	l.forget(key)
	g.Expect(l.echoes(key, "first", virtualkubeletv1alpha1.ShadowPodStatus{}, pending)).To(BeFalse())
}

// The provider's hottest write sends the status alone and asks for metadata
// back (lever 33): the object it patches through is metadata-only, so the
// client neither marshals the ShadowPod's pod nor decodes the ShadowPod the
// API server answers with, and the patch names nothing but the status.
func TestTheStatusWriteSendsTheStatusAloneForMetadataBack(t *testing.T) {
	sp := newShadowPod("web")
	var sent []client.Object
	var bodies [][]byte
	e := newInterceptedEnv(t, interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
		data, err := patch.Data(obj)
		if err != nil {
			return err
		}
		sent, bodies = append(sent, obj), append(bodies, data)
		return c.SubResource(sub).Patch(ctx, obj, patch, opts...)
	}}, newTwin(), sp)
	g := e.g
	e.mustReconcile(sp)
	e.kubelet(sp, corev1.PodRunning, true)
	_, got := e.mustReconcile(sp)
	g.Expect(got.Status.Phase).To(Equal(corev1.PodRunning), "the patch reached the stored status")
	g.Expect(condition(got, meta.ReadyCondition).Reason).To(Equal(PodReadyReason))

	g.Expect(sent).To(HaveLen(1))
	g.Expect(sent[0]).To(BeAssignableToTypeOf(&metav1.PartialObjectMetadata{}), "the answer is decoded as metadata only")
	var patch map[string]json.RawMessage
	g.Expect(json.Unmarshal(bodies[0], &patch)).To(Succeed())
	g.Expect(patch).To(HaveLen(1))
	g.Expect(patch).To(HaveKey("status"))
	var status map[string]json.RawMessage
	g.Expect(json.Unmarshal(patch["status"], &status)).To(Succeed())
	g.Expect(status).To(HaveKey("phase"))
	g.Expect(status).To(HaveKey("conditions"))
}

func ptrTo[T any](v T) *T { return &v }

func TestARecreationTheCacheHasNotSeenIsStillCounted(t *testing.T) {
	sp := newShadowPod("web")
	e, lc := newLaggingEnv(t, sp)
	g := e.g
	e.mustReconcile(sp)
	e.kubelet(sp, corev1.PodRunning, true)
	e.mustReconcile(sp)
	lc.freezeStored(g, sp) // the cache stops before the first recreation

	e.deletePod(sp)
	_, got := e.mustReconcile(sp)
	g.Expect(condition(got, PodRecreatedCondition).Message).To(HavePrefix("recreated 1 time;"))
	g.Expect(e.mustPod(sp).Annotations).To(HaveKeyWithValue(virtualkubeletv1alpha1.RecreationsAnnotation, "1"))

	// The new pod is deleted again before the cache has the count.
	e.deletePod(sp)
	_, got = e.mustReconcile(sp)
	g.Expect(e.mustPod(sp).Annotations).To(HaveKeyWithValue(virtualkubeletv1alpha1.RecreationsAnnotation, "2"),
		"the consumer counts restarts from the pod")
	g.Expect(condition(got, PodRecreatedCondition).Message).To(HavePrefix("recreated 2 times;"))
}
