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
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// FuzzClusterSelector: a spec.clusterSelector as anyone with write access to
// a NamespaceOffloading can write it (any key, operator and values) never
// panics the admission check or the placement; the webhook admits exactly
// the selectors the controller can evaluate; and what is selected is a
// sorted set of known peers, every one of them without a selector.
func FuzzClusterSelector(f *testing.F) {
	for _, seed := range [][4]string{
		{"topology.liqo.io/region", "In", "south", ""},
		{"region", "NotIn", "south,north", ""},
		{"gpu", "Exists", "", "legacy"},
		{"cores", "Gt", "4", ""},
		{"cores", "Lt", "x", ""},
		{"", "In", "", ""},
		{"a/b/c", "Exists", "v", ""},
		{"region", "Equals", "south", ""},
		{"region", "In", "", "!"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	nodes := []corev1.Node{
		peerNode("milan", map[string]string{"topology.liqo.io/region": "south", "cores": "8"}),
		peerNode("naples", map[string]string{"topology.liqo.io/region": "south", "gpu": "true"}),
		peerNode("milan", map[string]string{"region": "north"}), // a second node of milan
		{ObjectMeta: metav1.ObjectMeta{Name: "worker-1", Labels: map[string]string{"region": "south"}}},
	}
	f.Fuzz(func(t *testing.T, key, op, values, secondTermKey string) {
		var vals []string
		if values != "" {
			vals = strings.Split(values, ",")
		}
		sel := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: key, Operator: corev1.NodeSelectorOperator(op), Values: vals}}}}}
		if secondTermKey != "" {
			sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: secondTermKey, Operator: corev1.NodeSelectorOpIn, Values: vals}}})
		}
		no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: offloadingv1alpha1.RequiredName},
			Spec: offloadingv1alpha1.NamespaceOffloadingSpec{ClusterSelector: sel}}
		verdict := AdmitOffloading(nil, no)
		ids, err := SelectedClusters(sel, nodes)
		if verdict.Allowed() != (err == nil) {
			t.Fatalf("admission allowed=%t but the controller's evaluation says %v: %+v", verdict.Allowed(), err, sel)
		}
		if err != nil {
			if !strings.Contains(err.Error(), "spec.clusterSelector") {
				t.Fatalf("error %q does not name spec.clusterSelector", err)
			}
			return
		}
		all, _ := SelectedClusters(nil, nodes)
		if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
			t.Fatalf("selected %v: not a sorted set", ids)
		}
		for _, id := range ids {
			if !slices.Contains(all, id) {
				t.Fatalf("selected %q, which is no peer's virtual node (peers: %v)", id, all)
			}
		}
	})
}

func peerNode(clusterID string, labels map[string]string) corev1.Node {
	l := map[string]string{virtualNodeClusterIDLabel: clusterID}
	for k, v := range labels {
		l[k] = v
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "liqo-" + clusterID, Labels: l}}
}
