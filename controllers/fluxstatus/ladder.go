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
	"fmt"
	"reflect"

	"github.com/fluxcd/pkg/runtime/patch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Ladder is the reconcile sequence every finalizer-holding Spillway
// reconciler shares, in the order of Flux's controllers: get, serial patcher,
// deferred status write, deletion, finalizer, suspend, work. The reconciler
// supplies only what differs: its finalizer, how to read suspend and
// observedGeneration, and its Delete and Work steps.
type Ladder[T Object] struct {
	// Client reads the object and writes its finalizer and status.
	Client client.Client
	// Finalizer holds the object until Delete removes it from the object.
	Finalizer string
	// OwnedConditions are the reconciler's conditions besides Ready,
	// Reconciling and Stalled, which the status patch may overwrite.
	OwnedConditions []string
	// New returns an empty object to read the request into.
	New func() T
	// Suspended reports spec.suspend.
	Suspended func(T) bool
	// ObservedGeneration reads status.observedGeneration, for Begin.
	ObservedGeneration func(T) int64
	// Delete cleans up after a deleted object and removes Finalizer from it
	// (in memory: the ladder writes it) once nothing is left to clean up.
	Delete func(ctx context.Context, obj T) (ctrl.Result, error)
	// Work reconciles a live, unsuspended object and sets its conditions.
	Work func(ctx context.Context, obj T) (ctrl.Result, error)
}

// Reconcile runs the ladder for one request. It writes the object at most
// twice, always under FieldOwner: once to persist a new finalizer, once at the
// end for what changed (status, or the finalizer Delete removed).
//
// A new finalizer is patched at once and the reconcile goes on, rather than
// requeued: the finalizer must be stored before Work creates anything it has
// to clean up (nodes, namespaces, twins), the patch says so with an error if
// it fails, and a new object is then reconciled in one pass, not two (a
// requeued pass may also read a cache that has not yet seen the finalizer).
func (l *Ladder[T]) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	obj := l.New()
	if err := l.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	patcher := patch.NewSerialPatcher(obj, l.Client)
	defer func() {
		if !obj.GetDeletionTimestamp().IsZero() && !controllerutil.ContainsFinalizer(obj, l.Finalizer) {
			// Releasing the finalizer lets the object vanish: its status can no longer be written.
			err := patcher.Patch(ctx, obj, patch.WithFieldOwner(FieldOwner))
			if client.IgnoreNotFound(err) != nil {
				err = fmt.Errorf("removing finalizer %s from %s: %w", l.Finalizer, describe(obj, req), err)
			}
			retErr = errors.Join(retErr, client.IgnoreNotFound(err))
			return
		}
		retErr = errors.Join(retErr, Finalize(ctx, obj, patcher, l.OwnedConditions...))
	}()
	if !obj.GetDeletionTimestamp().IsZero() {
		return l.Delete(ctx, obj)
	}
	if controllerutil.AddFinalizer(obj, l.Finalizer) {
		if err := patcher.Patch(ctx, obj, patch.WithFieldOwner(FieldOwner)); err != nil {
			return ctrl.Result{}, fmt.Errorf("adding finalizer %s to %s: %w", l.Finalizer, describe(obj, req), err)
		}
	}
	if l.Suspended(obj) {
		MarkSuspended(obj)
		return ctrl.Result{}, nil
	}
	Begin(obj, l.ObservedGeneration(obj))
	return l.Work(ctx, obj)
}

// describe names the object as a person looks it up: "ResourceOffer liqo/rome".
func describe(obj client.Object, req ctrl.Request) string {
	return kindOf(obj) + " " + req.String()
}

// kindOf is the object's kind; typed objects read from the API server carry
// no TypeMeta, so it falls back to the Go type's name, which is the kind.
func kindOf(obj client.Object) string {
	if kind := obj.GetObjectKind().GroupVersionKind().Kind; kind != "" {
		return kind
	}
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Name()
}
