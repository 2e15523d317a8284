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

package reflection

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// errNotOurs marks a provider object of the copy's name that Spillway did not
// make: it is never overwritten nor deleted.
var errNotOurs = errors.New("not a Spillway copy")

// FieldOwner is the field manager of every write on the provider.
const FieldOwner = "spillway-reflection"

// sync makes the copy of one local object match it, or go away. It is
// idempotent: the work queue may hand it the same key any number of times.
func (r *Reflector) sync(ctx context.Context, key types.NamespacedName) error {
	remoteNs, err := r.peer.Namespaces(ctx, key.Namespace)
	if err != nil {
		// Not offloaded to this peer: the twin, if any, is removed with
		// its copies by unoffloading.
		r.copies.forget(key.Namespace)
		r.setReflected(key, false)
		return nil
	}
	r.copies.watch(key.Namespace, remoteNs)
	err = r.syncTo(ctx, key, remoteNs, true)
	if apierrors.IsAlreadyExists(err) || apierrors.IsConflict(err) || apierrors.IsNotFound(err) {
		// The watch was behind the provider (a copy created, changed or
		// deleted there since; or the name is taken by an object that is
		// not a copy, which the watch never holds): ask it.
		err = r.syncTo(ctx, key, remoteNs, false)
	}
	return err
}

// syncTo is sync against the copy read from the watch of the copies when
// fromWatch and the watch can tell, else from the provider.
func (r *Reflector) syncTo(ctx context.Context, key types.NamespacedName, remoteNs string, fromWatch bool) error {
	desired, err := r.desired(ctx, key, remoteNs)
	if err != nil {
		return err
	}
	remoteKey := types.NamespacedName{Namespace: remoteNs, Name: key.Name}
	// Only a write's read comes from the watch: a write from a stale view is
	// refused, while a copy to delete that the watch has not seen yet would
	// be left behind.
	existing, err := r.readCopy(ctx, key.Namespace, remoteKey, fromWatch && desired != nil)
	switch {
	case apierrors.IsNotFound(err):
		if desired == nil {
			r.setReflected(key, false)
			return nil
		}
		if err := r.peer.Remote.Create(ctx, desired, client.FieldOwner(FieldOwner)); err != nil {
			return fmt.Errorf("creating the %s copy %s on %s: %w", r.kind.Name, remoteKey, r.peer.RemoteClusterName, err)
		}
	case err != nil:
		return fmt.Errorf("reading the %s copy %s on %s: %w", r.kind.Name, remoteKey, r.peer.RemoteClusterName, err)
	case !IsCopyFor(existing, &r.peer) || r.kind.ownedElsewhere(existing):
		if desired == nil {
			return nil
		}
		return fmt.Errorf("%w: %s %s on %s exists and was not reflected from %s; it is left as it is: delete it on %s, or add %s to the local object",
			errNotOurs, r.kind.Name, remoteKey, r.peer.RemoteClusterName, key, r.peer.RemoteClusterName, "the liqo.io/skip-reflection annotation")
	case desired == nil:
		uid := existing.GetUID()
		if err := r.peer.Remote.Delete(ctx, existing, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting the %s copy %s on %s: %w", r.kind.Name, remoteKey, r.peer.RemoteClusterName, err)
		}
		r.setReflected(key, false)
		return nil
	case r.kind.Merge(desired, existing):
		if err := r.peer.Remote.Update(ctx, existing, client.FieldOwner(FieldOwner)); err != nil {
			return fmt.Errorf("updating the %s copy %s on %s: %w", r.kind.Name, remoteKey, r.peer.RemoteClusterName, err)
		}
	}
	r.setReflected(key, true)
	return nil
}

// readCopy returns the provider's object named remoteKey: from the watch of
// the copies when fromWatch and it has listed the twin, else from the
// provider. A NotFound from the watch means no copy there; an object that is
// not a copy is found only by asking the provider.
func (r *Reflector) readCopy(ctx context.Context, localNs string, remoteKey types.NamespacedName, fromWatch bool) (client.Object, error) {
	if fromWatch {
		if obj, found, known := r.copies.get(localNs, remoteKey.Namespace, remoteKey.Name); known {
			if !found {
				return nil, apierrors.NewNotFound(r.copies.resource.GroupResource(), remoteKey.Name)
			}
			return obj, nil
		}
	}
	existing := r.kind.New()
	return existing, r.peer.Remote.Get(ctx, remoteKey, existing)
}

// desired is the copy the local object calls for, nil when there must be none.
func (r *Reflector) desired(ctx context.Context, key types.NamespacedName, remoteNs string) (client.Object, error) {
	local := r.kind.New()
	if err := r.local.Get(ctx, key, local); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	if !local.GetDeletionTimestamp().IsZero() || Skipped(local) {
		return nil, nil
	}
	if isCopy(local) {
		relayed, err := r.relays(ctx, local)
		if err != nil || !relayed {
			return nil, err
		}
	}
	return r.kind.Translate(local, remoteNs, &r.peer), nil
}

// isCopy reports a local object that is itself another cluster's copy (this
// cluster is also a provider).
func isCopy(o client.Object) bool {
	_, ok := o.GetLabels()[DestinationClusterIDLabel]
	return ok
}

// relays reports whether a copy is copied on to the peer. Copies are not,
// but for one case: a broker (docs/architecture.md, "The broker") offloads
// its consumer's twin onward, and the twin's objects are that consumer's
// copies, which its pods need at the providers. So a copy made for this
// cluster, in the twin of the cluster it came from, goes on, and never back
// to that cluster.
func (r *Reflector) relays(ctx context.Context, copied client.Object) (bool, error) {
	l := copied.GetLabels()
	origin := l[sharingv1alpha1.OriginClusterIDLabel]
	if origin == "" || origin == r.peer.RemoteClusterID || l[DestinationClusterIDLabel] != r.peer.LocalClusterID {
		return false, nil
	}
	ns := &corev1.Namespace{}
	if err := r.local.Get(ctx, types.NamespacedName{Name: copied.GetNamespace()}, ns); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return ns.Labels[sharingv1alpha1.TwinNamespaceLabel] == origin, nil
}

// copyLabelsOnly selects the copies made for peer.
func copyLabelsOnly(peer *Peer) map[string]string {
	return map[string]string{sharingv1alpha1.OriginClusterIDLabel: peer.LocalClusterID, DestinationClusterIDLabel: peer.RemoteClusterID}
}

func eachName(list client.ObjectList, into map[string]bool) error {
	return meta.EachListItem(list, func(o runtime.Object) error {
		acc, err := meta.Accessor(o)
		if err != nil {
			return err
		}
		into[acc.GetName()] = true
		return nil
	})
}
