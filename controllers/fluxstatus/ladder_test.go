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
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

const testFinalizer = "spillway.liqo.io/test"

// statusWrite is how Flux's patch helper writes a status: the conditions
// (with only the owned ones overwritten) and the other fields, as two requests.
var statusWrite = []string{"patch status", "patch status"}

func withFinalizer(o *obj) { controllerutil.AddFinalizer(o, testFinalizer) }

func withSuspend(o *obj) { o.Spec.Suspend = true }

func withDeleting(o *obj) {
	now := metav1.Now()
	o.DeletionTimestamp = &now
}

// steps records which of the reconciler's steps the ladder called, and plays them.
type steps struct {
	called []string
	// workErr fails Work with a transient error after marking Ready=False.
	workErr error
	// releaseFinalizer: Delete has nothing left to clean up.
	releaseFinalizer bool
}

func (s *steps) ladder(c client.Client) *Ladder[*obj] {
	return &Ladder[*obj]{
		Client:             c,
		Finalizer:          testFinalizer,
		New:                func() *obj { return &obj{} },
		Suspended:          func(o *obj) bool { return o.Spec.Suspend },
		ObservedGeneration: func(o *obj) int64 { return o.Status.ObservedGeneration },
		Delete: func(_ context.Context, o *obj) (ctrl.Result, error) {
			s.called = append(s.called, "delete")
			if s.releaseFinalizer {
				controllerutil.RemoveFinalizer(o, testFinalizer)
				return ctrl.Result{}, nil
			}
			MarkNotReady(o, false, "Draining", "2 pods still terminating")
			return ctrl.Result{RequeueAfter: time.Second}, nil
		},
		Work: func(_ context.Context, o *obj) (ctrl.Result, error) {
			s.called = append(s.called, "work")
			if s.workErr != nil {
				MarkNotReady(o, false, meta.ReconciliationFailedReason, "%v", s.workErr)
				return ctrl.Result{}, s.workErr
			}
			conditions.MarkTrue(o, meta.ReadyCondition, "Offloaded", "offloaded")
			return ctrl.Result{RequeueAfter: time.Minute}, nil
		},
	}
}

func TestLadder(t *testing.T) {
	apiDown := apierrors.NewServiceUnavailable("etcd is down")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "namespaceoffloadings"}, "offloading", errors.New("no"))
	tests := []struct {
		name  string
		obj   *obj // nil: the object does not exist
		steps steps
		fail  map[string]error
		// want
		called     []string
		writes     []string
		result     ctrl.Result
		err        string // substring; "" for no error
		gone       bool
		summary    summary
		finalizers []string
	}{{
		name:   "a missing object is not an error and writes nothing",
		called: nil, writes: nil, gone: true,
	}, {
		name:   "a new object gets its finalizer stored before work, then its status, in one pass",
		obj:    newObj(),
		called: []string{"work"}, writes: []string{"patch", "patch status", "patch status"},
		result:     ctrl.Result{RequeueAfter: time.Minute},
		summary:    summary{ready: metav1.ConditionTrue, observedGeneration: 2},
		finalizers: []string{testFinalizer},
	}, {
		name:   "an object with its finalizer writes only its status",
		obj:    newObj(withFinalizer),
		called: []string{"work"}, writes: statusWrite,
		result:     ctrl.Result{RequeueAfter: time.Minute},
		summary:    summary{ready: metav1.ConditionTrue, observedGeneration: 2},
		finalizers: []string{testFinalizer},
	}, {
		name: "a finalizer that cannot be stored stops the reconcile before work",
		obj:  newObj(),
		fail: map[string]error{"patch": forbidden},
		// The deferred status write retries the finalizer first, and is refused too.
		called: nil, writes: []string{"patch", "patch"},
		err:     "adding finalizer spillway.liqo.io/test to NamespaceOffloading apps/offloading",
		summary: summary{observedGeneration: 1},
	}, {
		name:   "a transient work error is returned and recorded, keeping the old generation",
		obj:    newObj(withFinalizer),
		steps:  steps{workErr: apiDown},
		called: []string{"work"}, writes: statusWrite,
		err: "etcd is down",
		summary: summary{ready: metav1.ConditionFalse, reconciling: metav1.ConditionTrue,
			reconcilingReason: meta.ProgressingWithRetryReason, observedGeneration: 1},
		finalizers: []string{testFinalizer},
	}, {
		name:   "a suspended object is not worked on and is not reported as reconciling",
		obj:    newObj(withFinalizer, withSuspend, withReady(metav1.ConditionTrue), withReconciling),
		called: nil, writes: statusWrite,
		summary:    summary{ready: metav1.ConditionTrue, observedGeneration: 2},
		finalizers: []string{testFinalizer},
	}, {
		name:   "a new suspended object still gets its finalizer",
		obj:    newObj(withSuspend),
		called: nil, writes: []string{"patch"},
		summary:    summary{observedGeneration: 1},
		finalizers: []string{testFinalizer},
	}, {
		name:   "a deleted object still cleaning up keeps its finalizer and reports why",
		obj:    newObj(withFinalizer, withDeleting),
		called: []string{"delete"}, writes: statusWrite,
		result: ctrl.Result{RequeueAfter: time.Second},
		summary: summary{ready: metav1.ConditionFalse, reconciling: metav1.ConditionTrue,
			reconcilingReason: meta.ProgressingWithRetryReason, observedGeneration: 1},
		finalizers: []string{testFinalizer},
	}, {
		name:   "a deleted object that is cleaned up releases its finalizer and goes",
		obj:    newObj(withFinalizer, withDeleting),
		steps:  steps{releaseFinalizer: true},
		called: []string{"delete"}, writes: []string{"patch"},
		gone: true,
	}, {
		name:   "a deleted suspended object is still cleaned up",
		obj:    newObj(withFinalizer, withDeleting, withSuspend),
		steps:  steps{releaseFinalizer: true},
		called: []string{"delete"}, writes: []string{"patch"},
		gone: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			ctx := context.Background()
			w := &writes{fail: tt.fail}
			var objs []client.Object
			if tt.obj != nil {
				objs = append(objs, tt.obj)
			}
			c := newClient(w, objs...)
			key := client.ObjectKey{Namespace: "apps", Name: "offloading"}

			result, err := tt.steps.ladder(c).Reconcile(ctx, ctrl.Request{NamespacedName: key})

			if tt.err == "" {
				g.Expect(err).NotTo(HaveOccurred())
			} else {
				g.Expect(err).To(MatchError(ContainSubstring(tt.err)))
			}
			g.Expect(result).To(Equal(tt.result))
			g.Expect(tt.steps.called).To(Equal(tt.called))
			g.Expect(w.verbs).To(Equal(tt.writes))
			for _, m := range w.managers {
				g.Expect(m).To(Equal(FieldOwner), "every write names the field owner")
			}
			got := &obj{}
			err = c.Get(ctx, key, got)
			if tt.gone {
				g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the object is gone: %v", err)
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(summarize(got)).To(Equal(tt.summary))
			g.Expect(got.Finalizers).To(Equal(tt.finalizers))
		})
	}
}

func TestLadderReturnsReadErrors(t *testing.T) {
	g := NewWithT(t)
	s := &steps{}
	c := &failingGet{Client: newClient(&writes{}), err: apierrors.NewServiceUnavailable("cache not synced")}
	_, err := s.ladder(c).Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: "apps", Name: "offloading"}})
	g.Expect(apierrors.IsServiceUnavailable(err)).To(BeTrue())
	g.Expect(s.called).To(BeEmpty())
}

type failingGet struct {
	client.Client
	err error
}

func (f *failingGet) Get(context.Context, client.ObjectKey, client.Object, ...client.GetOption) error {
	return f.err
}
