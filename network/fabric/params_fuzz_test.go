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

package fabric

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzParseParams: whatever a peer writes into its parameters ConfigMap,
// parsing and the range guard never panic; every refusal names the
// ConfigMap; accepted parameters written back with Data parse to the same
// values; and an accepted pod CIDR never reaches the service, node or
// special ranges nor is wider than the limit.
func FuzzParseParams(f *testing.F) {
	const key = "ADJ8vZ6Ufy1lLQrNOxJsl2oZy3B3v2V9VrBb1B6JbE0="
	for _, seed := range [][5]string{
		{"milan", key, "198.18.0.2:51820", "10.244.0.0/16", "10.208.0.0/16"},
		{"milan", key, "gw.example:51820", "10.244.1.0/16", ""},
		{"milan", "c2hvcnQ=", "198.18.0.2", "10.244.0.0/33", "nope"},
		{"", "", "[::1]:0", "fd00::/64", "10.208.0.0/24"},
		{"milan", key, "198.18.0.2:51820", "128.0.0.0/1", ""},
		{"milan", key, "198.18.0.2:51820", "10.96.0.0/16", ""},
		{"milan", key, "198.18.0.2:51820", "0.0.0.0/0", "0.0.0.0/0"},
		{"milan", key, ":51820", "169.254.64.0/24", ""},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3], seed[4])
	}
	cfg := Config{PodCIDR: netip.MustParsePrefix("10.244.0.0/16"), GatewayAddress: "198.18.0.1",
		ServiceCIDRs: []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12")}, NodeCIDRs: []netip.Prefix{netip.MustParsePrefix("192.168.10.0/24")}}
	guard := newPeerGuard(cfg)
	const source = "ConfigMap t/liqo-network-provider on milan"
	f.Fuzz(func(t *testing.T, clusterID, publicKey, endpoint, podCIDR, remap string) {
		data := map[string]string{"clusterID": clusterID, "publicKey": publicKey, "endpoint": endpoint,
			"podCIDR": podCIDR, "remappedPeerPodCIDR": remap, "externalCIDR": remap}
		p, err := ParseParams(source, data)
		if err == nil {
			err = guard.check(source, p)
		}
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, source+": ") {
					t.Fatalf("problem %q does not start with the ConfigMap", line)
				}
			}
			return
		}
		again, err := ParseParams(source, p.Data())
		if err != nil || again != p {
			t.Fatalf("Data() of %+v parses as %+v, %v", p, again, err)
		}
		if p.PodCIDR.Bits() < DefaultWidestPeerPodCIDR {
			t.Fatalf("accepted pod CIDR %s, wider than /%d", p.PodCIDR, DefaultWidestPeerPodCIDR)
		}
		for _, r := range guard.protected {
			if p.PodCIDR.Overlaps(r.prefix) {
				t.Fatalf("accepted pod CIDR %s, which overlaps %s", p.PodCIDR, r.what)
			}
		}
	})
}
