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

package selector

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spillway-dev/spillway/policies"
)

func req(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func TestParseMapsEachOperator(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []corev1.NodeSelectorRequirement
	}{
		{"region=south", []corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpIn, "south")}},
		{"region==south", []corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpIn, "south")}},
		{"region!=south", []corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpNotIn, "south")}},
		{"region in (south,north)", []corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpIn, "north", "south")}},
		{"region notin (center)", []corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpNotIn, "center")}},
		{"gpu", []corev1.NodeSelectorRequirement{req("gpu", corev1.NodeSelectorOpExists)}},
		{"!legacy", []corev1.NodeSelectorRequirement{req("legacy", corev1.NodeSelectorOpDoesNotExist)}},
		{"cores>4", []corev1.NodeSelectorRequirement{req("cores", corev1.NodeSelectorOpGt, "4")}},
		{"topology.liqo.io/region=south", []corev1.NodeSelectorRequirement{req("topology.liqo.io/region", corev1.NodeSelectorOpIn, "south")}},
	} {
		t.Run(tc.expr, func(t *testing.T) {
			g := NewWithT(t)
			ns, err := Parse("selector", []string{tc.expr})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(ns.NodeSelectorTerms).To(HaveLen(1))
			g.Expect(ns.NodeSelectorTerms[0].MatchExpressions).To(Equal(tc.want))
		})
	}
}

func TestParseANDsWithinASelectorAndORsAcrossThem(t *testing.T) {
	g := NewWithT(t)
	ns, err := Parse("selector", []string{"region in (south),!legacy", "tier=edge"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ns.NodeSelectorTerms).To(HaveLen(2), "one term per --selector")
	g.Expect(ns.NodeSelectorTerms[0].MatchExpressions).To(ConsistOf(
		req("region", corev1.NodeSelectorOpIn, "south"), req("legacy", corev1.NodeSelectorOpDoesNotExist)))
	g.Expect(ns.NodeSelectorTerms[1].MatchExpressions).To(ConsistOf(req("tier", corev1.NodeSelectorOpIn, "edge")))

	// Evaluated as the controller does.
	nodes := []corev1.Node{
		vnode("south-id", "region", "south"),
		vnode("south-legacy-id", "region", "south", "legacy", "true"),
		vnode("edge-id", "tier", "edge", "legacy", "true"),
		vnode("north-id", "region", "north"),
	}
	ids, err := policies.SelectedClusters(ns, nodes)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ids).To(Equal([]string{"edge-id", "south-id"}))
}

func vnode(id string, kv ...string) corev1.Node {
	n := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "liqo-" + id, Labels: map[string]string{"liqo.io/remote-cluster-id": id}}}
	for i := 0; i < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	return n
}

func TestParseWithoutSelectorSelectsEveryPeer(t *testing.T) {
	g := NewWithT(t)
	ns, err := Parse("selector", nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ns).To(BeNil())
}

func TestParseNamesTheFlagOnBadSyntax(t *testing.T) {
	for _, expr := range []string{"region in (south", "", " ", "=south", "Bad Key=x", "cores>four", "region in south"} {
		t.Run(expr, func(t *testing.T) {
			g := NewWithT(t)
			_, err := Parse("selector", []string{"tier=edge", expr})
			g.Expect(err).To(HaveOccurred())
			g.Expect(err.Error()).To(HavePrefix("--selector"))
			g.Expect(err.Error()).To(ContainSubstring(Syntax), "the fix is on the same line")
			g.Expect(err.Error()).NotTo(ContainSubstring("\n"))
		})
	}
}
