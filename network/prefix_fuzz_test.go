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

package network

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzParseCIDR: flags and peers' values never panic the CIDR parsers; a
// prefix accepted is canonical (no host bits), its String parses back to
// itself, and a list written back from ParseCIDRList reads the same.
func FuzzParseCIDR(f *testing.F) {
	for _, s := range []string{"10.244.0.0/16", " 10.244.0.0/16 ", "10.244.1.0/16", "10.244.0.0/33", "10.244.0.0",
		"fd00::/64", "::ffff:10.0.0.0/104", "0.0.0.0/0", "128.0.0.0/1", "10.0.0.0/8,,10.96.0.0/12", "1.2.3.4/32,x", "/", ","} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseCIDR("--pod-cidr", s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--pod-cidr ") {
				t.Fatalf("error %q does not start with the field", err)
			}
		} else {
			if p != p.Masked() {
				t.Fatalf("%q gave %s, which has host bits", s, p)
			}
			if again, err := netip.ParsePrefix(p.String()); err != nil || again != p {
				t.Fatalf("%s does not round-trip: %s, %v", p, again, err)
			}
		}
		list, err := ParseCIDRList("--reserved-subnets", s)
		if err != nil {
			return
		}
		again, err := ParseCIDRList("--reserved-subnets", joinPrefixes(list))
		if err != nil || len(again) != len(list) {
			t.Fatalf("%q: list %v written back as %q reads %v, %v", s, list, joinPrefixes(list), again, err)
		}
		for i := range list {
			if again[i] != list[i] {
				t.Fatalf("%q: list %v written back reads %v", s, list, again)
			}
		}
	})
}
