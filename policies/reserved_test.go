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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func TestReservedNamespacesMatchNamesAndPrefixes(t *testing.T) {
	g := NewWithT(t)
	r, err := ParseReservedNamespaces(" monitoring, kube-* ,,liqo")
	g.Expect(err).NotTo(HaveOccurred())
	for name, entry := range map[string]string{"monitoring": "monitoring", "kube-system": "kube-*", "kube-": "kube-*", "liqo": "liqo"} {
		got, ok := r.Reserves(name)
		g.Expect(ok).To(BeTrue(), name)
		g.Expect(got).To(Equal(entry), name)
	}
	for _, name := range []string{"monitoring-2", "shop", "liqo-demo", "kube", "cube-system"} {
		_, ok := r.Reserves(name)
		g.Expect(ok).To(BeFalse(), name)
	}
}

func TestTheDefaultsReserveTheProvidersOwnNamespaces(t *testing.T) {
	g := NewWithT(t)
	r, err := ParseReservedNamespaces(DefaultReservedNamespaces)
	g.Expect(err).NotTo(HaveOccurred())
	r = r.With("spillway-system")
	for _, name := range []string{"default", "kube-system", "kube-public", "liqo", "liqo-tenant-rome", "flux-system", "external-secrets",
		"cert-manager", "monitoring", "spillway-system"} {
		_, ok := r.Reserves(name)
		g.Expect(ok).To(BeTrue(), name)
	}
	_, ok := r.Reserves("liqo-demo")
	g.Expect(ok).To(BeFalse(), "the seed offloads liqo-demo with EnforceSameName")
}

func TestParseReservedNamespacesNamesTheBadEntry(t *testing.T) {
	for entry, message := range map[string]string{
		"*":         "reserves every name",
		"Kube-*":    `"Kube-*" is not a namespace prefix`,
		"kube-*-x*": `"kube-*-x*" is not a namespace prefix`,
		"a*b":       `"a*b" is not a namespace name`,
		"Default":   `"Default" is not a namespace name`,
	} {
		t.Run(entry, func(t *testing.T) {
			g := NewWithT(t)
			_, err := ParseReservedNamespaces("default," + entry)
			g.Expect(err).To(MatchError(ContainSubstring(message)))
			g.Expect(err.Error()).To(ContainSubstring("--reserved-namespaces"))
		})
	}
}

// FuzzReservedNamespaces: the list is an operator's, the names consumers'.
// Neither panics, an accepted list matches what it says, and a name a
// consumer sends is reserved exactly when an entry covers it.
func FuzzReservedNamespaces(f *testing.F) {
	f.Add(DefaultReservedNamespaces, "monitoring")
	f.Add("kube-*,liqo", "kube-system")
	f.Add("*", "x")
	f.Add("a**", "a")
	f.Add(",, ,", "")
	f.Add("é*", "é")
	f.Fuzz(func(t *testing.T, list, name string) {
		r, err := ParseReservedNamespaces(list)
		if err != nil {
			return
		}
		entry, reserved := r.Reserves(name)
		covered := false
		for e := range strings.SplitSeq(list, ",") {
			e = strings.TrimSpace(e)
			if p, ok := strings.CutSuffix(e, "*"); ok && p != "" && strings.HasPrefix(name, p) || e != "" && e == name {
				covered = true
			}
		}
		if reserved != covered {
			t.Fatalf("Reserves(%q) = %v with list %q, want %v", name, reserved, list, covered)
		}
		if reserved && entry == "" {
			t.Fatalf("Reserves(%q) names no entry", name)
		}
	})
}
