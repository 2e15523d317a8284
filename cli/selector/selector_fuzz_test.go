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
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/spillway-dev/spillway/policies"
)

// format writes a term back in the syntax Parse reads.
func format(term corev1.NodeSelectorTerm) string {
	parts := make([]string, 0, len(term.MatchExpressions))
	for _, r := range term.MatchExpressions {
		switch r.Operator {
		case corev1.NodeSelectorOpIn:
			parts = append(parts, r.Key+" in ("+strings.Join(r.Values, ",")+")")
		case corev1.NodeSelectorOpNotIn:
			parts = append(parts, r.Key+" notin ("+strings.Join(r.Values, ",")+")")
		case corev1.NodeSelectorOpExists:
			parts = append(parts, r.Key)
		case corev1.NodeSelectorOpDoesNotExist:
			parts = append(parts, "!"+r.Key)
		case corev1.NodeSelectorOpGt:
			parts = append(parts, r.Key+">"+r.Values[0])
		case corev1.NodeSelectorOpLt:
			parts = append(parts, r.Key+"<"+r.Values[0])
		}
	}
	return strings.Join(parts, ",")
}

// fuzzNodes are label sets the parsed selector and the label selector it
// came from must agree on.
var fuzzNodes = []map[string]string{
	{},
	{"region": "south", "cores": "8"},
	{"region": "north", "gpu": "true", "cores": "2"},
	{"topology.liqo.io/region": "south", "env": "prod", "legacy": ""},
}

// FuzzParse: whatever a person types after --selector, Parse does not
// panic; what it accepts, written back, parses to the same selector, is
// accepted by the policy that reads clusterSelector, and selects exactly the
// clusters the label selector syntax means.
func FuzzParse(f *testing.F) {
	for _, seed := range [][2]string{
		{"region=south", ""}, {"region==south", "gpu"}, {"region!=south", "!legacy"},
		{"env in (prod,staging),!legacy", "tier notin (edge)"}, {"cores>4", "cores<16"},
		{"topology.liqo.io/region=south", ""}, {"", ""}, {",", "a="}, {"a in ()", "x notin (,)"},
		{"cores>x", "=v"}, {"a=b=c", "(a)"}, {"a in (b", "!"}, {"a,a=b,a!=c", "a.b/c-d_e=f"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		exprs := []string{a}
		if b != "" {
			exprs = append(exprs, b)
		}
		ns, err := Parse("selector", exprs)
		if err != nil {
			if !strings.Contains(err.Error(), "--selector") {
				t.Fatalf("error %q does not name the flag", err)
			}
			return
		}
		if len(ns.NodeSelectorTerms) != len(exprs) {
			t.Fatalf("%q gave %d terms", exprs, len(ns.NodeSelectorTerms))
		}
		var again []string
		for _, term := range ns.NodeSelectorTerms {
			again = append(again, format(term))
		}
		ns2, err := Parse("selector", again)
		if err != nil || !reflect.DeepEqual(ns, ns2) {
			t.Fatalf("round trip of %q through %q: %+v, %v; want %+v", exprs, again, ns2, err, ns)
		}
		if _, err := policies.SelectedClusters(ns, nil); err != nil {
			t.Fatalf("%q parses but the policy refuses it: %v", exprs, err)
		}
		match, err := nodeaffinity.NewNodeSelector(ns)
		if err != nil {
			t.Fatal(err)
		}
		for _, nodeLabels := range fuzzNodes {
			want := false
			for _, e := range exprs {
				sel, _ := labels.Parse(e)
				want = want || sel.Matches(labels.Set(nodeLabels))
			}
			node := &corev1.Node{}
			node.Labels = nodeLabels
			if got := match.Match(node); got != want {
				t.Fatalf("%q on labels %v: the clusterSelector says %t, the label selector %t", exprs, nodeLabels, got, want)
			}
		}
	})
}
