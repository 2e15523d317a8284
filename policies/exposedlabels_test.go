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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func withLabels(kv ...string) nodeOpt {
	return func(n *corev1.Node) {
		for i := 0; i < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func TestExposedLabels(t *testing.T) {
	const region, zone = "topology.kubernetes.io/region", "topology.kubernetes.io/zone"
	cpu := rl("cpu", "4")
	keys := []string{region, zone}
	cases := []struct {
		name          string
		nodes         []corev1.Node
		keys          []string
		want          map[string]string
		wantConflicts []LabelConflict
	}{
		{name: "keys the providers agree on",
			nodes: []corev1.Node{
				newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(region, "eu", zone, "eu-1")),
				newNode("liqo-naples", cpu, providedBy("naples-id"), withLabels(region, "eu", zone, "eu-1"))},
			keys: keys, want: map[string]string{region: "eu", zone: "eu-1"}},
		{name: "a key one provider carries is the union's",
			nodes: []corev1.Node{
				newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(region, "eu")),
				newNode("liqo-naples", cpu, providedBy("naples-id"), withLabels(zone, "eu-2"))},
			keys: keys, want: map[string]string{region: "eu", zone: "eu-2"}},
		{name: "a key the providers disagree on is left out and named",
			nodes: []corev1.Node{
				newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(region, "eu", zone, "eu-1")),
				newNode("liqo-naples", cpu, providedBy("naples-id"), withLabels(region, "eu", zone, "eu-2")),
				newNode("liqo-turin", cpu, providedBy("turin-id"), withLabels(zone, "eu-2"))},
			keys: keys, want: map[string]string{region: "eu"},
			wantConflicts: []LabelConflict{{Key: zone, Values: map[string][]string{"eu-1": {"liqo-milan"}, "eu-2": {"liqo-naples", "liqo-turin"}}}}},
		{name: "a NotReady provider's labels drop out, and with them its conflict",
			nodes: []corev1.Node{
				newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(zone, "eu-1")),
				newNode("liqo-naples", cpu, providedBy("naples-id"), withLabels(zone, "eu-2"), notReady)},
			keys: keys, want: map[string]string{zone: "eu-1"}},
		{name: "a cordoned provider's labels drop out",
			nodes: []corev1.Node{newNode("liqo-naples", cpu, providedBy("naples-id"), withLabels(zone, "eu-2"), cordoned)},
			keys:  keys, want: map[string]string{}},
		{name: "the consumer's own node, a brokered node and physical nodes are not resold, so lend no label",
			nodes: []corev1.Node{
				newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(zone, "eu-1")),
				newNode("liqo-rome", cpu, providedBy("rome-id"), withLabels(zone, "rome-zone", region, "rome")),
				newNode("liqo-genoa", cpu, providedBy("genoa-id"), brokered, withLabels(zone, "genoa-zone")),
				newNode("worker", cpu, withLabels(region, "local"))},
			keys: keys, want: map[string]string{zone: "eu-1"}},
		{name: "only the keys asked for",
			nodes: []corev1.Node{newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(region, "eu", zone, "eu-1", "gpu", "a100"))},
			keys:  []string{"gpu"}, want: map[string]string{"gpu": "a100"}},
		{name: "reserved keys and non-keys are never derived",
			nodes: []corev1.Node{newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels("bad key", "x"))},
			keys:  []string{"liqo.io/remote-cluster-id", "liqo.io/type", "kubernetes.io/hostname", "spillway.liqo.io/brokered", "bad key"},
			want:  map[string]string{}},
		{name: "no keys, nothing", nodes: []corev1.Node{newNode("liqo-milan", cpu, providedBy("milan-id"), withLabels(region, "eu"))},
			want: map[string]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got, conflicts := ExposedLabels(tc.nodes, "rome-id", tc.keys)
			g.Expect(got).To(Equal(tc.want))
			g.Expect(conflicts).To(Equal(tc.wantConflicts))
		})
	}
}

func TestExposedLabelConflictMessageNamesKeyValuesAndNodes(t *testing.T) {
	g := NewWithT(t)
	msg := ExposedLabelConflictMessage([]LabelConflict{
		{Key: "topology.kubernetes.io/zone", Values: map[string][]string{"eu-2": {"liqo-naples"}, "eu-1": {"liqo-milan"}}}})
	g.Expect(msg).To(HavePrefix(`topology.kubernetes.io/zone left out: the providers' virtual nodes disagree (liqo-milan="eu-1", liqo-naples="eu-2")`))
	g.Expect(msg).To(ContainSubstring("spec.exposedLabelKeys"))
}

func TestParseExposedLabelKeys(t *testing.T) {
	cases := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "topology.kubernetes.io/region,topology.kubernetes.io/zone", want: []string{"topology.kubernetes.io/region", "topology.kubernetes.io/zone"}},
		{in: " zone , example.com/rack_1 ", want: []string{"zone", "example.com/rack_1"}},
		{in: "", wantErr: "an empty label key"},
		{in: "zone,,rack", wantErr: "an empty label key"},
		{in: "bad key", wantErr: `"bad key" is not a label key`},
		{in: "Example.com/zone", wantErr: "is not a label key"},
		{in: "zone,liqo.io/remote-cluster-id", wantErr: `"liqo.io/remote-cluster-id" is set by the virtual node itself`},
		{in: "spillway.liqo.io/brokered", wantErr: "is set by the virtual node itself"},
		{in: "zone,zone", wantErr: `"zone" is listed twice`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			g := NewWithT(t)
			got, err := ParseExposedLabelKeys(tc.in)
			if tc.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tc.want))
		})
	}
}

// FuzzParseExposedLabelKeys: whatever a user types, a parsed list holds
// only distinct, valid, unreserved label keys, which ExposedLabels accepts.
func FuzzParseExposedLabelKeys(f *testing.F) {
	for _, seed := range []string{"topology.kubernetes.io/zone", "a,b", "liqo.io/type", ",", "a/b/c", "x,x", "é"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		keys, err := ParseExposedLabelKeys(in)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if len(validation.IsQualifiedName(k)) > 0 || slices.Contains(virtualkubeletv1alpha1.ReservedLabelKeys(), k) || seen[k] {
				t.Fatalf("%q parsed into %q, which holds the invalid, reserved or repeated key %q", in, keys, k)
			}
			seen[k] = true
		}
		n := newNode("liqo-milan", nil, providedBy("milan-id"))
		for _, k := range keys {
			n.Labels[k] = "v"
		}
		if got, _ := ExposedLabels([]corev1.Node{n}, "rome-id", keys); len(got) != len(keys) {
			t.Fatalf("%q: ExposedLabels derived %v for keys %q, want each key", in, got, keys)
		}
	})
}
