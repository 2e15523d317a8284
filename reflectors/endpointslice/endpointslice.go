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

// Package endpointslice reflects a Service's EndpointSlices into twin
// namespaces. The provider's own control plane only knows the pods running
// there, so the copy carries the endpoints it cannot see: every endpoint of
// the local slice except those of pods offloaded to that very provider,
// which its EndpointSlice controller already lists. Addresses go through the
// network fabric's mapping, so they are reachable from the provider.
package endpointslice

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// ManagedBy is the endpointslice.kubernetes.io/managed-by value of copies: a
// value other than the EndpointSlice controller's, so the provider's
// controller leaves them alone while kube-proxy still serves them.
const ManagedBy = "endpointslice.reflection.liqo.io"

// Kind is the EndpointSlice reflector.
var Kind = reflection.Kind{
	Name:      "endpointslice",
	New:       func() client.Object { return &discoveryv1.EndpointSlice{} },
	NewList:   func() client.ObjectList { return &discoveryv1.EndpointSliceList{} },
	Translate: Translate,
	Merge:     Merge,
}

// Translate keeps the endpoints the provider lacks, addresses mapped. A slice
// that belongs to no Service, that has nothing the provider lacks, or whose
// peering reflects no IPs (reflectIPs=false) gets no copy.
func Translate(o client.Object, remoteNamespace string, peer *reflection.Peer) client.Object {
	local := o.(*discoveryv1.EndpointSlice)
	if local.Labels[discoveryv1.LabelServiceName] == "" || !peer.Network.ReflectIPs {
		return nil
	}
	var endpoints []discoveryv1.Endpoint
	for _, ep := range local.Endpoints {
		if ep.NodeName != nil && *ep.NodeName == peer.NodeName {
			continue
		}
		if out, ok := translateEndpoint(ep, peer); ok {
			endpoints = append(endpoints, out)
		}
	}
	if len(endpoints) == 0 {
		return nil
	}
	labels := reflection.CopyLabels(local, peer)
	labels[discoveryv1.LabelManagedBy] = ManagedBy
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: local.Name, Namespace: remoteNamespace,
			Labels: labels, Annotations: reflection.CopyAnnotations(local)},
		AddressType: local.AddressType, Endpoints: endpoints, Ports: local.DeepCopy().Ports,
	}
}

// translateEndpoint maps the addresses and drops what names consumer objects
// the provider does not have: its node, its pod, its zone.
func translateEndpoint(ep discoveryv1.Endpoint, peer *reflection.Peer) (discoveryv1.Endpoint, bool) {
	out := discoveryv1.Endpoint{Conditions: *ep.Conditions.DeepCopy(), Hostname: ep.Hostname}
	for _, a := range ep.Addresses {
		if mapped, ok := peer.Network.ReflectLocalIP(peer.RemoteClusterID, a); ok {
			out.Addresses = append(out.Addresses, mapped)
		}
	}
	if ep.TargetRef != nil && ep.TargetRef.Kind == "Pod" {
		// Name only, for people reading the copy: the UID is the consumer's.
		out.TargetRef = &corev1.ObjectReference{Kind: "Pod", Name: ep.TargetRef.Name}
	}
	return out, len(out.Addresses) > 0
}

// Merge realigns the copy's metadata, endpoints and ports.
func Merge(d, e client.Object) bool {
	desired, existing := d.(*discoveryv1.EndpointSlice), e.(*discoveryv1.EndpointSlice)
	changed := reflection.MergeMeta(desired, existing)
	if desired.AddressType != existing.AddressType || !equality.Semantic.DeepEqual(desired.Endpoints, existing.Endpoints) ||
		!equality.Semantic.DeepEqual(desired.Ports, existing.Ports) {
		existing.AddressType, existing.Endpoints, existing.Ports = desired.AddressType, desired.Endpoints, desired.Ports
		changed = true
	}
	return changed
}
