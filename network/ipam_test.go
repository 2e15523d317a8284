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
	"errors"
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
)

var pfx = netip.MustParsePrefix

func newTestIPAM(t *testing.T, cfg IPAMConfig) (*IPAM, *Registry) {
	t.Helper()
	reg := NewRegistry()
	a, err := NewIPAM(cfg, reg)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return a, reg
}

func TestAllocateKeepsNonOverlappingCIDR(t *testing.T) {
	g := NewWithT(t)
	a, reg := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")})
	m, err := a.Allocate("milan", pfx("10.245.0.0/16"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Remapped()).To(BeFalse())
	g.Expect(m.Local).To(Equal(pfx("10.245.0.0/16")))
	got, ok := reg.Get("milan")
	g.Expect(ok).To(BeTrue())
	g.Expect(got).To(Equal(m))
}

func TestAllocateRemapsOverlaps(t *testing.T) {
	cases := []struct {
		name   string
		cfg    IPAMConfig
		remote string
		want   string
	}{
		{"same pod CIDR", IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")}, "10.244.0.0/16", "10.208.0.0/16"},
		{"remote inside local", IPAMConfig{LocalPodCIDR: pfx("10.0.0.0/8"), Pools: []netip.Prefix{pfx("172.16.0.0/12")}}, "10.1.0.0/16", "172.16.0.0/16"},
		{"external CIDR", IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16"), ExternalCIDR: pfx("10.250.0.0/16")}, "10.250.0.0/16", "10.208.0.0/16"},
		{"reserved subnet", IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16"), Reserved: []netip.Prefix{pfx("10.96.0.0/12")}}, "10.100.0.0/16", "10.208.0.0/16"},
		{"skips reserved in pool", IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16"), Reserved: []netip.Prefix{pfx("10.208.0.0/15")}}, "10.244.0.0/16", "10.210.0.0/16"},
		{"skips local pod CIDR and the remote itself", IPAMConfig{LocalPodCIDR: pfx("10.64.0.0/24"), Pools: []netip.Prefix{pfx("10.64.0.0/14")}}, "10.64.0.0/16", "10.65.0.0/16"},
		{"ipv6", IPAMConfig{LocalPodCIDR: pfx("fd00:10:244::/56"), Pools: []netip.Prefix{pfx("fd00:ffff::/32")}}, "fd00:10:244::/56", "fd00:ffff::/56"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			a, err := NewIPAM(tc.cfg, NewRegistry())
			g.Expect(err).NotTo(HaveOccurred())
			m, err := a.Allocate("milan", pfx(tc.remote))
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(m.Remapped()).To(BeTrue())
			g.Expect(m.Local).To(Equal(pfx(tc.want)))
		})
	}
}

func TestAllocateGivesPeeringsDistinctRemaps(t *testing.T) {
	g := NewWithT(t)
	a, _ := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")})
	milan, err := a.Allocate("milan", pfx("10.244.0.0/16"))
	g.Expect(err).NotTo(HaveOccurred())
	paris, err := a.Allocate("paris", pfx("10.244.0.0/16"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(paris.Local).To(Equal(pfx("10.209.0.0/16")))
	g.Expect(milan.Local.Overlaps(paris.Local)).To(BeFalse())

	// a non-overlapping remote that lands on milan's remap must itself move
	turin, err := a.Allocate("turin", pfx("10.208.0.0/16"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(turin.Local).To(Equal(pfx("10.210.0.0/16")))
}

func TestAllocateIsStableAndReleaseFrees(t *testing.T) {
	g := NewWithT(t)
	a, reg := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")})
	first, _ := a.Allocate("milan", pfx("10.244.0.0/16"))
	again, _ := a.Allocate("milan", pfx("10.244.0.0/16"))
	g.Expect(again).To(Equal(first))

	a.Release("milan")
	_, ok := reg.Get("milan")
	g.Expect(ok).To(BeFalse())
	paris, _ := a.Allocate("paris", pfx("10.244.0.0/16"))
	g.Expect(paris.Local).To(Equal(first.Local))
}

func TestAllocateReallocatesWhenRemoteCIDRChanges(t *testing.T) {
	g := NewWithT(t)
	a, _ := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")})
	_, _ = a.Allocate("milan", pfx("10.244.0.0/16"))
	m, err := a.Allocate("milan", pfx("10.244.0.0/20"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Local).To(Equal(pfx("10.208.0.0/20")))
}

func TestAllocateExhaustionNamesThePool(t *testing.T) {
	g := NewWithT(t)
	a, reg := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16"), Pools: []netip.Prefix{pfx("192.168.0.0/17")}})
	_, err := a.Allocate("milan", pfx("10.244.0.0/17"))
	g.Expect(err).NotTo(HaveOccurred())
	_, err = a.Allocate("paris", pfx("10.244.0.0/17"))
	g.Expect(errors.Is(err, ErrPoolExhausted)).To(BeTrue())
	g.Expect(err).To(MatchError(And(ContainSubstring(`"paris"`), ContainSubstring("192.168.0.0/17"),
		ContainSubstring("--remap-pools"), ContainSubstring("/17"))))
	_, ok := reg.Get("paris")
	g.Expect(ok).To(BeFalse())
}

func TestAllocateRemoteLargerThanEveryPool(t *testing.T) {
	g := NewWithT(t)
	a, _ := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")})
	_, err := a.Allocate("milan", pfx("10.0.0.0/8"))
	g.Expect(errors.Is(err, ErrPoolExhausted)).To(BeTrue())
	g.Expect(err).To(MatchError(ContainSubstring("no remap pool (10.208.0.0/12) has a free /8")))
}

func TestNewIPAMRejectsBadConfig(t *testing.T) {
	g := NewWithT(t)
	_, err := NewIPAM(IPAMConfig{}, nil)
	g.Expect(err).To(MatchError(ContainSubstring("local pod CIDR is required")))
	_, err = NewIPAM(IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16"), Pools: []netip.Prefix{{}}}, nil)
	g.Expect(err).To(MatchError(ContainSubstring("--remap-pools")))
	_, err = NewIPAM(IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")}, nil)
	g.Expect(err).NotTo(HaveOccurred())
}

func TestAllocateRejectsBadInput(t *testing.T) {
	g := NewWithT(t)
	a, _ := newTestIPAM(t, IPAMConfig{LocalPodCIDR: pfx("10.244.0.0/16")})
	_, err := a.Allocate("", pfx("10.244.0.0/16"))
	g.Expect(err).To(MatchError(ContainSubstring("remote cluster ID is empty")))
	_, err = a.Allocate("milan", netip.Prefix{})
	g.Expect(err).To(MatchError(ContainSubstring(`remote cluster "milan" is not a valid CIDR`)))
}

func TestAllocatePreferringKeepsAnEarlierRemapAndRefusesATakenOne(t *testing.T) {
	local := netip.MustParsePrefix("10.244.0.0/16")
	ipam, err := NewIPAM(IPAMConfig{LocalPodCIDR: local}, NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	earlier := netip.MustParsePrefix("10.212.0.0/16")
	m, err := ipam.AllocatePreferring("b", local, earlier)
	if err != nil || m.Local != earlier {
		t.Fatalf("AllocatePreferring(b, preferred %s) = %v, %v; want the preferred remap kept", earlier, m, err)
	}
	// c prefers the same CIDR, which b now holds: it must get another one.
	m2, err := ipam.AllocatePreferring("c", local, earlier)
	if err != nil || m2.Local == earlier || !m2.Remapped() {
		t.Fatalf("AllocatePreferring(c, taken %s) = %v, %v; want a different remap", earlier, m2, err)
	}
	// A remote that clashes with nothing is never remapped, whatever was preferred.
	m3, err := ipam.AllocatePreferring("d", netip.MustParsePrefix("10.50.0.0/16"), netip.MustParsePrefix("10.213.0.0/16"))
	if err != nil || m3.Remapped() {
		t.Fatalf("AllocatePreferring(d, no clash) = %v, %v; want the identity", m3, err)
	}
	// A preferred CIDR outside every pool is ignored.
	m4, err := ipam.AllocatePreferring("e", local, netip.MustParsePrefix("192.168.0.0/16"))
	if err != nil || !m4.Remapped() || m4.Local.Addr().As4()[0] != 10 {
		t.Fatalf("AllocatePreferring(e, outside the pools) = %v, %v; want a pool CIDR", m4, err)
	}
}
