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

package plan

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

// peerings compares a cluster's ForeignClusters.
func (d *diff) peerings() {
	headPeers := map[string]peer{}
	for _, p := range d.head.peersOf(d.h) {
		headPeers[p.Name] = p
	}
	names := map[string]bool{}
	for n := range d.b.ForeignClusters {
		names[n] = true
	}
	for n := range d.h.ForeignClusters {
		names[n] = true
	}
	for _, name := range sortedKeys(names) {
		b, h := d.b.ForeignClusters[name], d.h.ForeignClusters[name]
		switch {
		case h == nil:
			d.add(Change{Kind: PeerRemoved, Message: fmt.Sprintf(
				"stops peering with %s: its virtual node goes away, the pods on it are evicted and namespaces offloaded there are withdrawn", name)})
		case b == nil:
			if d.validPeer(h) {
				d.add(Change{Kind: PeerAdded, Message: fmt.Sprintf("peers with %s (cluster ID %s): %s",
					name, h.Spec.ClusterIdentity.ClusterID, d.virtualNodeOf(h, headPeers[name]))})
			}
		case equality.Semantic.DeepEqual(b.Spec, h.Spec):
		case b.Spec.ClusterIdentity.ClusterID != h.Spec.ClusterIdentity.ClusterID:
			d.add(Change{Kind: InvalidPeer, Rejected: true, Message: fmt.Sprintf(
				"ForeignCluster %s: spec.clusterIdentity.clusterID is immutable (%s → %s): remove the ForeignCluster in one change and declare one for the other cluster in the next",
				name, b.Spec.ClusterIdentity.ClusterID, h.Spec.ClusterIdentity.ClusterID)})
		default:
			if d.validPeer(h) {
				d.add(Change{Kind: PeerChange, Message: peerChangeMessage(b, h)})
			}
		}
	}
}

// virtualNodeOf says what virtual node a new peering will give.
func (d *diff) virtualNodeOf(fc *discoveryv1alpha1.ForeignCluster, p peer) string {
	switch {
	case fc.Spec.OutgoingPeeringEnabled == discoveryv1alpha1.PeeringEnabledNo:
		return "outgoing peering is off, so no virtual node"
	case p.Provider == "":
		return fmt.Sprintf("no cluster of the fleet has this ID, so the labels of its virtual node %s are unknown here", p.Node.Name)
	case p.Node == nil:
		return fmt.Sprintf("%s has no ResourceOffer for %s in the fleet, so no virtual node until it offers one", p.Provider, d.h.displayName())
	}
	return fmt.Sprintf("virtual node %s with labels %s", p.Node.Name, formatLabels(p.Offer.Spec.Labels))
}

func (d *diff) validPeer(fc *discoveryv1alpha1.ForeignCluster) bool {
	var problems []string
	if fc.Spec.ClusterIdentity.ClusterID == "" {
		problems = append(problems, "spec.clusterIdentity.clusterID is empty: set the provider's CLUSTER_ID")
	}
	for field, v := range map[string]discoveryv1alpha1.PeeringEnabled{
		"spec.outgoingPeeringEnabled": fc.Spec.OutgoingPeeringEnabled, "spec.incomingPeeringEnabled": fc.Spec.IncomingPeeringEnabled} {
		switch v {
		case "", discoveryv1alpha1.PeeringEnabledAuto, discoveryv1alpha1.PeeringEnabledYes, discoveryv1alpha1.PeeringEnabledNo:
		default:
			problems = append(problems, fmt.Sprintf("%s %q is not Auto, Yes or No: use one of them", field, v))
		}
	}
	// The API server refuses these too (CEL rules in the CRD); plan says so before the merge.
	if fc.Spec.PeeringType == discoveryv1alpha1.PeeringTypeInBand {
		problems = append(problems, "spec.peeringType InBand is not implemented: only OutOfBand is; leave the field out or set OutOfBand")
	}
	if fc.Spec.InsecureSkipTLSVerify != nil && *fc.Spec.InsecureSkipTLSVerify {
		problems = append(problems, "spec.insecureSkipTLSVerify true is not supported: Spillway always verifies the provider's certificate; put its CA in the credentials Secret and remove the field")
	}
	if fc.Spec.IncomingPeeringEnabled == discoveryv1alpha1.PeeringEnabledYes {
		problems = append(problems, "spec.incomingPeeringEnabled Yes is not supported: the peer consumes this cluster when a ResourceOffer for it is committed; leave the field out or set No")
	}
	for _, p := range problems {
		d.add(Change{Kind: InvalidPeer, Rejected: true, Message: "ForeignCluster " + fc.Name + ": " + p})
	}
	return len(problems) == 0
}

func peerChangeMessage(b, h *discoveryv1alpha1.ForeignCluster) string {
	var parts []string
	if b.Spec.OutgoingPeeringEnabled != h.Spec.OutgoingPeeringEnabled {
		parts = append(parts, fmt.Sprintf("outgoing peering %s → %s", orAuto(b.Spec.OutgoingPeeringEnabled), orAuto(h.Spec.OutgoingPeeringEnabled)))
	}
	if b.Spec.IncomingPeeringEnabled != h.Spec.IncomingPeeringEnabled {
		parts = append(parts, fmt.Sprintf("incoming peering %s → %s", orAuto(b.Spec.IncomingPeeringEnabled), orAuto(h.Spec.IncomingPeeringEnabled)))
	}
	if b.Spec.Suspend != h.Spec.Suspend {
		parts = append(parts, fmt.Sprintf("suspend %t → %t", b.Spec.Suspend, h.Spec.Suspend))
	}
	if !equality.Semantic.DeepEqual(b.Spec.CredentialsSecretRef, h.Spec.CredentialsSecretRef) {
		parts = append(parts, "credentials Secret changed")
	}
	if len(parts) == 0 {
		parts = append(parts, "spec changed")
	}
	return "ForeignCluster " + h.Name + ": " + strings.Join(parts, ", ")
}

func orAuto(v discoveryv1alpha1.PeeringEnabled) discoveryv1alpha1.PeeringEnabled {
	if v == "" {
		return discoveryv1alpha1.PeeringEnabledAuto
	}
	return v
}

func formatLabels(l map[string]string) string {
	if len(l) == 0 {
		return "none beyond liqo.io's"
	}
	parts := make([]string, 0, len(l))
	for _, k := range sortedKeys(l) {
		parts = append(parts, k+"="+l[k])
	}
	return strings.Join(parts, ",")
}
