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

// Package reflection is the engine the resource reflectors share. For one
// peering and one resource type, a Reflector keeps a copy of every object of
// an offloaded namespace in that namespace's twin on the provider. The local
// object is the source of truth: the copy is created, realigned and deleted
// after it, on every local change and on a periodic resync, and a copy that
// outlived its original is collected. What a type's copy looks like (the
// seed's mutations) is the Kind's business; the engine only moves objects.
package reflection

import (
	"context"
	"maps"

	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/network"
)

// DestinationClusterIDLabel names, on a reflected copy, the cluster it was
// copied to; OriginClusterIDLabel names the cluster it came from. Together
// they mark the copy as Spillway's: an object without them is never touched.
const DestinationClusterIDLabel = "liqo.io/destination-cluster-id"

// lastAppliedAnnotation is kubectl's record of the local manifest; it means
// nothing on the provider and can be large.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// NamespaceMapper returns the twin of a local namespace on the peer, or an
// error when the namespace is not offloaded there (yet).
type NamespaceMapper func(ctx context.Context, localNamespace string) (string, error)

// Peer is the provider that copies go to, seen with the consumer's identity.
type Peer struct {
	LocalClusterID    string
	RemoteClusterID   string
	RemoteClusterName string
	// NodeName is the virtual node standing for the provider: endpoints of
	// pods running there already exist on the provider.
	NodeName string
	// Remote acts on the provider; it is allowed into twin namespaces only.
	// Provider is the same identity as a clientset, for watches.
	Remote   client.Client
	Provider kubernetes.Interface
	// Namespaces maps a local namespace to its twin on this peer.
	Namespaces NamespaceMapper
	// Network decides which IPs are written into copies (networking.internal,
	// reflectIPs).
	Network network.Mode
}

// Kind says how one resource type is reflected. Translate and Merge are pure
// functions, table-tested per type.
type Kind struct {
	// Name is the resource's name in flags and metrics: "configmap", ...
	Name string
	// New returns an empty object of the type; NewList an empty list.
	New     func() client.Object
	NewList func() client.ObjectList
	// Translate returns the copy local must have in remoteNamespace, or nil
	// when local must not be reflected (a stale copy is then deleted).
	Translate func(local client.Object, remoteNamespace string, peer *Peer) client.Object
	// Merge makes existing, the copy on the provider, carry what desired
	// says while keeping the fields the provider assigns (a Service's
	// clusterIP); it reports whether anything changed.
	Merge func(desired, existing client.Object) bool
	// OwnedElsewhere, when set, reports a provider object that carries the
	// copy labels but belongs to another reflector (the ServiceAccount
	// tokens among Secrets): the engine neither overwrites nor deletes it.
	OwnedElsewhere func(existing client.Object) bool
}

// ownedElsewhere reports whether existing is another reflector's.
func (k *Kind) ownedElsewhere(existing client.Object) bool {
	return k.OwnedElsewhere != nil && k.OwnedElsewhere(existing)
}

// Skipped reports whether an object opted out of reflection.
func Skipped(o client.Object) bool {
	_, skip := o.GetAnnotations()[virtualkubeletv1alpha1.SkipReflectionAnnotation]
	return skip
}

// CopyLabels are the labels of a copy: the original's, plus origin and
// destination, which make the copy recognisably Spillway's.
func CopyLabels(local client.Object, peer *Peer) map[string]string {
	out := maps.Clone(local.GetLabels())
	if out == nil {
		out = map[string]string{}
	}
	out[sharingv1alpha1.OriginClusterIDLabel] = peer.LocalClusterID
	out[DestinationClusterIDLabel] = peer.RemoteClusterID
	return out
}

// CopyAnnotations are the original's annotations, less kubectl's record.
func CopyAnnotations(local client.Object) map[string]string {
	out := maps.Clone(local.GetAnnotations())
	delete(out, lastAppliedAnnotation)
	if len(out) == 0 {
		return nil
	}
	return out
}

// IsCopyFor reports whether o is a copy this consumer made for peer.
func IsCopyFor(o client.Object, peer *Peer) bool {
	l := o.GetLabels()
	return l[sharingv1alpha1.OriginClusterIDLabel] == peer.LocalClusterID && l[DestinationClusterIDLabel] == peer.RemoteClusterID
}

// MergeMeta sets existing's labels and annotations to desired's, reporting a
// change. The provider adds none to the kinds reflected, so they are replaced.
func MergeMeta(desired, existing client.Object) bool {
	changed := false
	if !maps.Equal(desired.GetLabels(), existing.GetLabels()) {
		existing.SetLabels(desired.GetLabels())
		changed = true
	}
	if !maps.Equal(desired.GetAnnotations(), existing.GetAnnotations()) {
		existing.SetAnnotations(desired.GetAnnotations())
		changed = true
	}
	return changed
}
