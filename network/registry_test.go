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
	"testing"

	. "github.com/onsi/gomega"
)

func TestRegistryMapRemoteIP(t *testing.T) {
	r := NewRegistry()
	r.Set(Mapping{RemoteClusterID: "milan", Remote: pfx("10.244.0.0/16"), Local: pfx("10.70.0.0/16")})
	r.Set(Mapping{RemoteClusterID: "paris", Remote: pfx("10.245.0.0/16"), Local: pfx("10.245.0.0/16")})
	r.Set(Mapping{RemoteClusterID: "v6", Remote: pfx("fd00:10:244::/56"), Local: pfx("fd00:ffff:0:100::/56")})
	cases := []struct{ cluster, ip, want string }{
		{"milan", "10.244.1.10", "10.70.1.10"},
		{"milan", "10.244.255.255", "10.70.255.255"},
		{"milan", "::ffff:10.244.3.4", "10.70.3.4"},
		{"milan", "10.1.2.3", "10.1.2.3"},     // outside the remote pod CIDR
		{"milan", "not-an-ip", "not-an-ip"},   // reflected as is, never an error
		{"milan", "", ""},                     // pods without an IP yet
		{"paris", "10.245.0.9", "10.245.0.9"}, // identity mapping
		{"rome", "10.244.1.10", "10.244.1.10"},
		{"v6", "fd00:10:244:12::5", "fd00:ffff:0:112::5"},
	}
	for _, tc := range cases {
		NewWithT(t).Expect(r.MapRemoteIP(tc.cluster, tc.ip)).To(Equal(tc.want), "%s %s", tc.cluster, tc.ip)
	}
}

func TestRegistryDeleteRestoresIdentity(t *testing.T) {
	g := NewWithT(t)
	r := NewRegistry()
	r.Set(Mapping{RemoteClusterID: "milan", Remote: pfx("10.244.0.0/16"), Local: pfx("10.70.0.0/16")})
	r.Delete("milan")
	g.Expect(r.MapRemoteIP("milan", "10.244.1.10")).To(Equal("10.244.1.10"))
}

func TestMapRemoteIPReadsWhatIPAMAllocated(t *testing.T) {
	g := NewWithT(t)
	reg := NewRegistry()
	a, err := NewIPAM(IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")}, reg)
	g.Expect(err).NotTo(HaveOccurred())
	m, err := a.Allocate("registry-test", pfx("10.244.0.0/16"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(reg.MapRemoteIP("registry-test", "10.244.7.8")).To(Equal(translate(netip4("10.244.7.8"), m.Remote, m.Local).String()))
	g.Expect(reg.MapRemoteIP("registry-test", "10.244.7.8")).To(Equal("10.208.7.8"))
	a.Release("registry-test")
	g.Expect(reg.MapRemoteIP("registry-test", "10.244.7.8")).To(Equal("10.244.7.8"))
}

func TestMapLocalIP(t *testing.T) {
	r := NewRegistry()
	if got := r.MapLocalIP("milan", "10.244.1.5"); got != "10.244.1.5" {
		t.Fatalf("with no peer view an IP maps to itself, got %s", got)
	}
	r.SetPeerView("milan", pfx("10.244.0.0/16"), pfx("10.70.0.0/16"))
	if got := r.MapLocalIP("milan", "10.244.1.5"); got != "10.70.1.5" {
		t.Fatalf("milan sees 10.244.1.5 at 10.70.1.5, got %s", got)
	}
	if got := r.MapLocalIP("milan", "192.168.0.1"); got != "192.168.0.1" {
		t.Fatalf("an IP outside the pod CIDR is not remapped, got %s", got)
	}
	if got := r.MapLocalIP("naples", "10.244.1.5"); got != "10.244.1.5" {
		t.Fatalf("another peer's view is not used, got %s", got)
	}
}

// A released peer leaves nothing in the registry: the manager peers and
// unpeers for as long as it runs, so every entry kept is memory kept.
func TestRegistryDeleteForgetsThePeerView(t *testing.T) {
	g := NewWithT(t)
	r := NewRegistry()
	r.Set(Mapping{RemoteClusterID: "milan", Remote: pfx("10.244.0.0/16"), Local: pfx("10.70.0.0/16")})
	r.SetPeerView("milan", pfx("10.244.0.0/16"), pfx("10.71.0.0/16"))
	g.Expect(r.MapLocalIP("milan", "10.244.1.10")).To(Equal("10.71.1.10"))
	r.Delete("milan")
	g.Expect(r.MapLocalIP("milan", "10.244.1.10")).To(Equal("10.244.1.10"))
	g.Expect(r.views).To(BeEmpty())
}
