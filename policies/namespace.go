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

package policies

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// ClusterSuffix is the short, stable tag Liqo appends to a cluster's name to
// make names unique across a fleet: the first 6 hex digits of the SHA-256 of
// the cluster ID (the seed's florence-7ab115, naples-5eada1).
func ClusterSuffix(clusterID string) string {
	sum := sha256.Sum256([]byte(clusterID))
	return hex.EncodeToString(sum[:])[:6]
}

// UniqueClusterName is <cluster name>-<suffix>, the key Liqo uses for a remote
// cluster in NamespaceOffloading status.
func UniqueClusterName(clusterName, clusterID string) string {
	return clusterName + "-" + ClusterSuffix(clusterID)
}

// RemoteNamespaceName is the name of a namespace's twin in the providers:
// unchanged with EnforceSameName, <ns>-<local cluster name>-<suffix> with
// DefaultName, so two consumers' same-named namespaces never collide.
func RemoteNamespaceName(strategy offloadingv1alpha1.NamespaceMappingStrategy, namespace, localClusterName, localClusterID string) string {
	if strategy == offloadingv1alpha1.EnforceSameNameMappingStrategy {
		return namespace
	}
	name := namespace + "-" + UniqueClusterName(localClusterName, localClusterID)
	if len(name) > 63 {
		// A namespace name is a DNS label; keep the unique tail.
		sum := sha256.Sum256([]byte(name))
		name = name[:63-11] + "-" + hex.EncodeToString(sum[:])[:10]
	}
	return name
}

// SelectedClusters returns the IDs of the peers whose virtual node matches the
// selector: terms are ORed, expressions within a term ANDed; a nil or empty
// selector selects every peer. It is what both the controller and the CLI's
// plan use to decide where a namespace goes.
func SelectedClusters(selector *corev1.NodeSelector, virtualNodes []corev1.Node) ([]string, error) {
	var match func(*corev1.Node) bool
	if selector == nil || len(selector.NodeSelectorTerms) == 0 {
		match = func(*corev1.Node) bool { return true }
	} else {
		ns, err := nodeaffinity.NewNodeSelector(selector)
		if err != nil {
			return nil, fmt.Errorf("spec.clusterSelector is invalid: %w", err)
		}
		match = ns.Match
	}
	seen := map[string]bool{}
	var ids []string
	for i := range virtualNodes {
		n := &virtualNodes[i]
		id := n.Labels[virtualNodeClusterIDLabel]
		if id == "" || seen[id] || !match(n) {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// virtualNodeClusterIDLabel ties a virtual node to the provider it stands for.
const virtualNodeClusterIDLabel = "liqo.io/remote-cluster-id"
