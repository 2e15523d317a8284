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

package fluxstatus

import (
	"context"
	"errors"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/runtime/patch"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// NamespaceOffloading stands for every Flux-style Spillway object here: the
// helpers see only the Object interface.
type obj = offloadingv1alpha1.NamespaceOffloading

type objOpt func(*obj)

// newObj is generation 2 of an object last reconciled at generation 1.
func newObj(opts ...objOpt) *obj {
	o := &obj{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "offloading", Generation: 2}}
	o.Status.ObservedGeneration = 1
	for _, f := range opts {
		f(o)
	}
	return o
}

func withReady(status metav1.ConditionStatus) objOpt {
	return func(o *obj) {
		conditions.Set(o, &metav1.Condition{Type: meta.ReadyCondition, Status: status, Reason: "Because", Message: "ready is " + string(status)})
	}
}

func withStalled(o *obj) { conditions.MarkStalled(o, "Broken", "fix it in git") }

func withReconciling(o *obj) { conditions.MarkReconciling(o, meta.ProgressingReason, "working") }

func withRequestedAt(v string) objOpt {
	return func(o *obj) { o.Annotations = map[string]string{meta.ReconcileRequestAnnotation: v} }
}

// summary is what kstatus and `flux get` read from an object's status.
type summary struct {
	ready, reconciling, stalled metav1.ConditionStatus // "" when the condition is absent
	reconcilingReason           string
	observedGeneration          int64
	lastHandled                 string
}

func summarize(o *obj) summary {
	status := func(t string) metav1.ConditionStatus {
		if c := conditions.Get(o, t); c != nil {
			return c.Status
		}
		return ""
	}
	return summary{ready: status(meta.ReadyCondition), reconciling: status(meta.ReconcilingCondition), stalled: status(meta.StalledCondition),
		reconcilingReason: conditions.GetReason(o, meta.ReconcilingCondition), observedGeneration: o.Status.ObservedGeneration,
		lastHandled: o.Status.LastHandledReconcileAt}
}

func TestSettle(t *testing.T) {
	tests := []struct {
		name string
		obj  *obj
		want summary
	}{{
		name: "ready drops Reconciling and Stalled and records the generation",
		obj:  newObj(withReady(metav1.ConditionTrue), withReconciling, withStalled),
		want: summary{ready: metav1.ConditionTrue, observedGeneration: 2},
	}, {
		name: "stalled drops Reconciling and records the generation: only git can change the outcome",
		obj:  newObj(withReady(metav1.ConditionFalse), withReconciling, withStalled),
		want: summary{ready: metav1.ConditionFalse, stalled: metav1.ConditionTrue, observedGeneration: 2},
	}, {
		name: "not ready keeps reconciling with a retry reason and the old generation",
		obj:  newObj(withReady(metav1.ConditionFalse)),
		want: summary{ready: metav1.ConditionFalse, reconciling: metav1.ConditionTrue,
			reconcilingReason: meta.ProgressingWithRetryReason, observedGeneration: 1},
	}, {
		name: "no Ready condition yet changes nothing",
		obj:  newObj(withReconciling),
		want: summary{reconciling: metav1.ConditionTrue, reconcilingReason: meta.ProgressingReason, observedGeneration: 1},
	}, {
		name: "a reconcile request is recorded as handled",
		obj:  newObj(withReady(metav1.ConditionTrue), withRequestedAt("2026-11-23T10:00:00Z")),
		want: summary{ready: metav1.ConditionTrue, observedGeneration: 2, lastHandled: "2026-11-23T10:00:00Z"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			Settle(tt.obj)
			NewWithT(t).Expect(summarize(tt.obj)).To(Equal(tt.want))
		})
	}
}

func TestSettleCopiesReadyMessageIntoReconciling(t *testing.T) {
	o := newObj()
	MarkNotReady(o, false, "PeerUnreachable", "provider %s does not answer", "milan")
	Settle(o)
	NewWithT(t).Expect(conditions.GetMessage(o, meta.ReconcilingCondition)).To(Equal("provider milan does not answer"))
}

func TestBegin(t *testing.T) {
	tests := []struct {
		name               string
		observedGeneration int64
		wantReconciling    bool
	}{
		{name: "a new generation is in progress", observedGeneration: 1, wantReconciling: true},
		{name: "a never reconciled object is in progress", observedGeneration: -1, wantReconciling: true},
		{name: "a resync of the observed generation is not", observedGeneration: 2, wantReconciling: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := newObj()
			Begin(o, tt.observedGeneration)
			NewWithT(t).Expect(conditions.IsReconciling(o)).To(Equal(tt.wantReconciling))
		})
	}
}

func TestMarkNotReady(t *testing.T) {
	tests := []struct {
		name        string
		obj         *obj
		stalled     bool
		wantStalled metav1.ConditionStatus
	}{
		{name: "stalled when only git can fix it", obj: newObj(), stalled: true, wantStalled: metav1.ConditionTrue},
		{name: "transient errors clear an earlier Stalled", obj: newObj(withStalled), stalled: false, wantStalled: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			MarkNotReady(tt.obj, tt.stalled, "BadSelector", "selector %q does not parse", "a=")
			g.Expect(conditions.IsFalse(tt.obj, meta.ReadyCondition)).To(BeTrue())
			g.Expect(conditions.GetReason(tt.obj, meta.ReadyCondition)).To(Equal("BadSelector"))
			g.Expect(conditions.GetMessage(tt.obj, meta.ReadyCondition)).To(Equal(`selector "a=" does not parse`))
			g.Expect(summarize(tt.obj).stalled).To(Equal(tt.wantStalled))
		})
	}
}

func TestMarkSuspendedKeepsReadyAsItWas(t *testing.T) {
	g := NewWithT(t)
	o := newObj(withReady(metav1.ConditionFalse), withReconciling)
	MarkSuspended(o)
	g.Expect(summarize(o)).To(Equal(summary{ready: metav1.ConditionFalse, observedGeneration: 1}))
}

// writes records every write a client sends and the field manager it names.
type writes struct {
	verbs    []string
	managers []string
	fail     map[string]error // verb → error returned instead of writing
}

func (w *writes) record(verb, manager string) error {
	w.verbs = append(w.verbs, verb)
	w.managers = append(w.managers, manager)
	return w.fail[verb]
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	return s
}

// newClient is a fake API server holding objs whose writes are recorded in w.
func newClient(w *writes, objs ...client.Object) client.Client {
	return fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(objs...).WithStatusSubresource(&obj{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
				po := &client.PatchOptions{}
				po.ApplyOptions(opts)
				if err := w.record("patch", po.FieldManager); err != nil {
					return err
				}
				return c.Patch(ctx, o, p, opts...)
			},
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
				po := &client.SubResourcePatchOptions{}
				po.ApplyOptions(opts)
				if err := w.record("patch "+sub, po.FieldManager); err != nil {
					return err
				}
				return c.SubResource(sub).Patch(ctx, o, p, opts...)
			},
		}).Build()
}

func TestFinalizeWritesStatusUnderFieldOwner(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	stored := newObj()
	w := &writes{}
	c := newClient(w, stored)
	o := &obj{}
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(stored), o)).To(Succeed())
	patcher := patch.NewSerialPatcher(o, c)
	conditions.MarkTrue(o, meta.ReadyCondition, "Offloaded", "offloaded to 2 clusters")

	g.Expect(Finalize(ctx, o, patcher)).To(Succeed())

	g.Expect(w.verbs).To(Equal(statusWrite))
	g.Expect(w.managers).To(Equal([]string{FieldOwner, FieldOwner}))
	got := &obj{}
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(stored), got)).To(Succeed())
	g.Expect(summarize(got)).To(Equal(summary{ready: metav1.ConditionTrue, observedGeneration: 2}))
}

func TestFinalizeErrorNamesTheObject(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	stored := newObj()
	refused := apierrors.NewForbidden(schema.GroupResource{Resource: "namespaceoffloadings"}, "offloading", errors.New("no"))
	c := newClient(&writes{fail: map[string]error{"patch status": refused}}, stored)
	o := &obj{}
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(stored), o)).To(Succeed())
	patcher := patch.NewSerialPatcher(o, c)
	MarkNotReady(o, false, "Failed", "boom")

	err := Finalize(ctx, o, patcher)

	g.Expect(err).To(MatchError(ContainSubstring("patching status of NamespaceOffloading apps/offloading")))
	g.Expect(err).To(MatchError(ContainSubstring("forbidden")))
}
