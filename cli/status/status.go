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

// Package status reads what Spillway is doing in a live cluster (peerings,
// virtual nodes, offloaded namespaces) and renders it for people, with the
// reason for anything that is not Ready.
package status

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Status is what one cluster reports, optionally narrowed to one peer.
type Status struct {
	// Peer is the ForeignCluster the status is narrowed to, "" for all.
	Peer            string
	ForeignClusters []discoveryv1alpha1.ForeignCluster
	VirtualNodes    []corev1.Node
	Offloadings     []offloadingv1alpha1.NamespaceOffloading
}

// ErrPeerNotFound is returned when the peer asked for has no ForeignCluster.
type ErrPeerNotFound struct{ Name string }

func (e ErrPeerNotFound) Error() string {
	return fmt.Sprintf("ForeignCluster %s not found: run spillway status to list the peers", e.Name)
}

// Collect reads the cluster's ForeignClusters, virtual nodes and
// NamespaceOffloadings; with peer set, only what concerns that peer.
func Collect(ctx context.Context, c client.Reader, peer string) (*Status, error) {
	s := &Status{Peer: peer}
	if peer != "" {
		var fc discoveryv1alpha1.ForeignCluster
		if err := c.Get(ctx, client.ObjectKey{Name: peer}, &fc); apierrors.IsNotFound(err) {
			return nil, ErrPeerNotFound{Name: peer}
		} else if err != nil {
			return nil, fmt.Errorf("reading ForeignCluster %s: %w", peer, err)
		}
		s.ForeignClusters = []discoveryv1alpha1.ForeignCluster{fc}
	} else {
		var fcs discoveryv1alpha1.ForeignClusterList
		if err := c.List(ctx, &fcs); err != nil {
			return nil, fmt.Errorf("listing ForeignClusters: %w", err)
		}
		s.ForeignClusters = fcs.Items
	}
	sort.Slice(s.ForeignClusters, func(i, j int) bool { return s.ForeignClusters[i].Name < s.ForeignClusters[j].Name })

	nodeLabels := client.MatchingLabels{discoveryv1alpha1.TypeLabel: discoveryv1alpha1.TypeVirtualNode}
	if peer != "" {
		nodeLabels[discoveryv1alpha1.RemoteClusterIDLabel] = s.ForeignClusters[0].Spec.ClusterIdentity.ClusterID
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes, nodeLabels); err != nil {
		return nil, fmt.Errorf("listing virtual nodes: %w", err)
	}
	s.VirtualNodes = nodes.Items
	sort.Slice(s.VirtualNodes, func(i, j int) bool { return s.VirtualNodes[i].Name < s.VirtualNodes[j].Name })

	var nsos offloadingv1alpha1.NamespaceOffloadingList
	if err := c.List(ctx, &nsos); err != nil {
		return nil, fmt.Errorf("listing NamespaceOffloadings: %w", err)
	}
	for _, no := range nsos.Items {
		if peer == "" || len(s.remoteConditions(&no)) > 0 {
			s.Offloadings = append(s.Offloadings, no)
		}
	}
	sort.Slice(s.Offloadings, func(i, j int) bool { return s.Offloadings[i].Namespace < s.Offloadings[j].Namespace })
	return s, nil
}

// peerName names the peer a status key stands for: the remote cluster ID, or
// Liqo's <name>-<suffix> form.
func (s *Status) peerName(key string) (string, bool) {
	for _, fc := range s.ForeignClusters {
		id := fc.Spec.ClusterIdentity.ClusterID
		name := fc.Spec.ClusterIdentity.ClusterName
		if name == "" {
			name = fc.Name
		}
		if key == id || key == policies.UniqueClusterName(name, id) {
			return fc.Name, true
		}
	}
	return key, false
}

// remoteCondition is the state of an offloaded namespace in one peer.
type remoteCondition struct {
	peer       string
	conditions offloadingv1alpha1.RemoteNamespaceConditions
}

// remoteConditions lists the per-peer conditions of a NamespaceOffloading,
// only the narrowed peer's when Peer is set.
func (s *Status) remoteConditions(no *offloadingv1alpha1.NamespaceOffloading) []remoteCondition {
	var out []remoteCondition
	for key, conds := range no.Status.RemoteNamespacesConditions {
		name, known := s.peerName(key)
		if s.Peer != "" && (!known || name != s.Peer) {
			continue
		}
		out = append(out, remoteCondition{peer: name, conditions: conds})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].peer < out[j].peer })
	return out
}
