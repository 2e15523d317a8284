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

package main

import (
	"flag"
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
)

// validOptions are the flags of cluster rome's gateway to milan, both on 10.244.0.0/16.
func validOptions(t *testing.T, mutate ...func(*options)) options {
	t.Helper()
	k, err := wgtypes.GeneratePrivateKey()
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	var o options
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	bindFlags(fs, &o)
	NewWithT(t).Expect(fs.Parse([]string{
		"--cluster-id=rome", "--remote-cluster-id=milan", "--private-key-file=/tmp/k",
		"--peer-public-key=" + k.PublicKey().String(), "--peer-endpoint=198.18.0.2:51820",
		"--tunnel-address=169.254.100.1/30", "--peer-tunnel-address=169.254.100.2",
		"--local-pod-cidr=10.244.0.0/16", "--remote-pod-cidr=10.244.0.0/16",
	})).To(Succeed())
	for _, m := range mutate {
		m(&o)
	}
	return o
}

func TestParseValidFlags(t *testing.T) {
	g := NewWithT(t)
	cfg, err := validOptions(t).parse()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Interface).To(Equal("spw-milan"))
	g.Expect(cfg.Mapping.Remote).To(Equal(netip.MustParsePrefix("10.244.0.0/16")))
	g.Expect(cfg.Mapping.Local).To(Equal(netip.MustParsePrefix("10.208.0.0/16")))
	g.Expect(cfg.PeerTunnelAddress).To(Equal(netip.MustParseAddr("169.254.100.2")))
	g.Expect(string(cfg.Implementation)).To(Equal("auto"))
}

func TestParseComputesRemapAroundReservedSubnets(t *testing.T) {
	g := NewWithT(t)
	cfg, err := validOptions(t, func(o *options) {
		o.reservedSubnets = "10.208.0.0/16,10.209.0.0/16"
		o.externalCIDR = "10.210.0.0/16"
	}).parse()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Mapping.Local).To(Equal(netip.MustParsePrefix("10.211.0.0/16")))
}

func TestParseKeepsNonOverlappingRemote(t *testing.T) {
	g := NewWithT(t)
	cfg, err := validOptions(t, func(o *options) { o.remotePodCIDR = "10.245.0.0/16" }).parse()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Mapping.Remapped()).To(BeFalse())
}

func TestParseRejectsBadFlags(t *testing.T) {
	cases := []struct {
		name    string
		mutate  func(*options)
		wantErr string
	}{
		{"unparsable CIDR", func(o *options) { o.localPodCIDR = "10.244.0.0/33" }, `--local-pod-cidr "10.244.0.0/33" is not a CIDR`},
		{"host bits", func(o *options) { o.remotePodCIDR = "10.244.1.0/16" }, `--remote-pod-cidr "10.244.1.0/16" has host bits set: use 10.244.0.0/16`},
		{"IPv6 pod CIDR", func(o *options) { o.remotePodCIDR = "fd00::/64" }, "--remote-pod-cidr fd00::/64 is IPv6"},
		{"missing pod CIDR", func(o *options) { o.localPodCIDR = "" }, "--local-pod-cidr is required"},
		{"remote overlaps every free pool", func(o *options) { o.remotePodCIDR = "10.0.0.0/8"; o.localPodCIDR = "10.0.0.0/8" },
			"--remote-pod-cidr 10.0.0.0/8: IPAM: pod CIDR 10.0.0.0/8 of remote cluster \"milan\" overlaps a local subnet and no remap pool (10.208.0.0/12) has a free /8"},
		{"pool exhausted", func(o *options) { o.remapPools = "10.208.0.0/16"; o.reservedSubnets = "10.208.0.0/16" }, "add a larger pool (--remap-pools)"},
		{"bad pool", func(o *options) { o.remapPools = "nope" }, `--remap-pools "nope" is not a CIDR`},
		{"explicit remap of another size", func(o *options) { o.remappedRemoteCIDR = "10.70.0.0/24" },
			"--remapped-remote-cidr 10.70.0.0/24 must be a /16 like --remote-pod-cidr 10.244.0.0/16"},
		{"explicit remap on the local pod CIDR", func(o *options) { o.remappedRemoteCIDR = "10.244.0.0/16" },
			"--remapped-remote-cidr 10.244.0.0/16 overlaps local subnet 10.244.0.0/16"},
		{"short public key", func(o *options) { o.peerPublicKey = "AAAA" }, "--peer-public-key decodes to 3 bytes, a WireGuard key has 32"},
		{"endpoint without port", func(o *options) { o.peerEndpoint = "198.18.0.2" }, `--peer-endpoint "198.18.0.2" is not host:port`},
		{"endpoint with bad port", func(o *options) { o.peerEndpoint = "gw:99999" }, `--peer-endpoint "gw:99999" has no valid port`},
		{"tunnel without prefix", func(o *options) { o.tunnelAddress = "169.254.100.1" }, `--tunnel-address "169.254.100.1" is not an IPv4 address with prefix length`},
		{"peer tunnel outside subnet", func(o *options) { o.peerTunnelAddress = "169.254.200.2" },
			"--peer-tunnel-address 169.254.200.2 must be another address of --tunnel-address 169.254.100.1/30"},
		{"same cluster", func(o *options) { o.remoteClusterID = "rome" }, `--remote-cluster-id "rome" is this cluster's own --cluster-id`},
		{"no key file", func(o *options) { o.privateKeyFile = "" }, "--private-key-file is required"},
		{"long interface", func(o *options) { o.interfaceName = "sixteen-chars-xx" }, `--interface-name "sixteen-chars-xx" is not a Linux interface name`},
		{"port", func(o *options) { o.listenPort = 0 }, "--listen-port 0 is not a UDP port"},
		{"implementation", func(o *options) { o.implementation = "nope" }, `--wireguard-implementation "nope"`},
		{"probe timing", func(o *options) { o.connectTimeout = 0 }, "--connect-timeout 0s"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := validOptions(t, tc.mutate).parse()
			NewWithT(t).Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
		})
	}
}

func TestParseReportsEveryProblem(t *testing.T) {
	g := NewWithT(t)
	_, err := options{implementation: "auto", mtu: 1420}.parse()
	for _, flag := range []string{"--cluster-id", "--remote-cluster-id", "--private-key-file", "--peer-public-key",
		"--peer-endpoint", "--tunnel-address", "--local-pod-cidr", "--remote-pod-cidr", "--listen-port"} {
		g.Expect(err).To(MatchError(ContainSubstring(flag)))
	}
}

func TestDefaultInterfaceFitsLinux(t *testing.T) {
	g := NewWithT(t)
	g.Expect(defaultInterface("7c1f6a2e-93d1-4b7e-a0c3-1234567890ab")).To(Equal("spw-7c1f6a2e93d"))
	g.Expect(ifaceName.MatchString(defaultInterface("7c1f6a2e-93d1-4b7e-a0c3-1234567890ab"))).To(BeTrue())
}
