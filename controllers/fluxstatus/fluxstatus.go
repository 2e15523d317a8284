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

// Package fluxstatus gives every Spillway reconciler the status contract of
// Flux's controllers (fluxcd/pkg/runtime): Ready, Reconciling and Stalled
// conditions, observedGeneration, and the reconcile.fluxcd.io/requestedAt
// handshake, so kstatus, `flux get` and health checks judge our objects as
// they judge a Kustomization.
package fluxstatus

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/fluxcd/pkg/runtime/patch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// FieldOwner is the field manager of every status write; it never owns a field
// that lives in git, so Flux's drift detection stays empty.
const FieldOwner = "spillway-controller"

// Object is a Spillway API object with Flux-style status.
type Object interface {
	client.Object
	conditions.Setter
	GetLastHandledReconcileRequest() string
	SetLastHandledReconcileRequest(string)
	SetObservedGeneration(int64)
}

// OwnedConditions are the conditions a reconciler may overwrite when patching.
var OwnedConditions = []string{meta.ReadyCondition, meta.ReconcilingCondition, meta.StalledCondition}

// Begin marks a reconcile of a new generation as in progress, so kstatus
// reports InProgress until Finalize records the generation.
func Begin(obj Object, observedGeneration int64) {
	if obj.GetGeneration() != observedGeneration {
		conditions.MarkReconciling(obj, meta.ProgressingReason, "reconciling generation %d", obj.GetGeneration())
	}
}

// Finalize applies the end-of-reconcile rules and patches the object once:
// the handled request annotation is recorded; a Ready object drops Reconciling
// and records its generation; a failed one keeps Reconciling with a retry
// reason unless it is Stalled (an error only a change in git can fix).
func Finalize(ctx context.Context, obj Object, patcher *patch.SerialPatcher, owned ...string) error {
	Settle(obj)
	opts := []patch.Option{
		patch.WithOwnedConditions{Conditions: append(append([]string{}, OwnedConditions...), owned...)},
		patch.WithFieldOwner(FieldOwner),
	}
	if err := patcher.Patch(ctx, obj, opts...); err != nil {
		return fmt.Errorf("patching status of %s %s: %w", kindOf(obj), client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// Settle applies Finalize's end-of-reconcile rules without writing: for a
// reconciler that writes its status itself, in one request.
func Settle(obj Object) {
	if v, ok := meta.ReconcileAnnotationValue(obj.GetAnnotations()); ok {
		obj.SetLastHandledReconcileRequest(v)
	}
	switch {
	case conditions.IsTrue(obj, meta.ReadyCondition):
		conditions.Delete(obj, meta.ReconcilingCondition)
		conditions.Delete(obj, meta.StalledCondition)
		obj.SetObservedGeneration(obj.GetGeneration())
	case conditions.IsStalled(obj):
		conditions.Delete(obj, meta.ReconcilingCondition)
		obj.SetObservedGeneration(obj.GetGeneration())
	case conditions.IsFalse(obj, meta.ReadyCondition):
		conditions.MarkReconciling(obj, meta.ProgressingWithRetryReason, "%s", conditions.GetMessage(obj, meta.ReadyCondition))
	}
}

// MarkNotReady sets Ready=False with an actionable message and, when the
// error cannot heal without a change in git, Stalled=True.
func MarkNotReady(obj Object, stalled bool, reason, format string, args ...any) {
	conditions.MarkFalse(obj, meta.ReadyCondition, reason, format, args...)
	if stalled {
		conditions.MarkStalled(obj, reason, format, args...)
	} else {
		conditions.Delete(obj, meta.StalledCondition)
	}
}

// MarkSuspended records that spec.suspend stops reconciliation, without
// claiming the object is healthy or not.
func MarkSuspended(obj Object) {
	conditions.Delete(obj, meta.ReconcilingCondition)
}
