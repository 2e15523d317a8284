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
	"testing"

	. "github.com/onsi/gomega"
)

func netip4(s string) netip.Addr { return netip.MustParseAddr(s) }

func TestParseCIDR(t *testing.T) {
	g := NewWithT(t)
	p, err := ParseCIDR("--local-pod-cidr", " 10.244.0.0/16 ")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(p).To(Equal(pfx("10.244.0.0/16")))
	_, err = ParseCIDR("--local-pod-cidr", "10.244.0.0")
	g.Expect(err).To(MatchError(`--local-pod-cidr "10.244.0.0" is not a CIDR: write it as address/length, e.g. 10.244.0.0/16`))
	_, err = ParseCIDR("--local-pod-cidr", "10.244.1.0/16")
	g.Expect(err).To(MatchError(`--local-pod-cidr "10.244.1.0/16" has host bits set: use 10.244.0.0/16`))
}

func TestParseCIDRList(t *testing.T) {
	g := NewWithT(t)
	ps, err := ParseCIDRList("--reserved-subnets", "10.96.0.0/12, ,192.168.0.0/16")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ps).To(Equal([]netip.Prefix{pfx("10.96.0.0/12"), pfx("192.168.0.0/16")}))
	_, err = ParseCIDRList("--reserved-subnets", "10.96.0.0/12,x")
	g.Expect(err).To(MatchError(ContainSubstring(`--reserved-subnets "x" is not a CIDR`)))
}

func TestLastAddrAndTranslate(t *testing.T) {
	g := NewWithT(t)
	g.Expect(lastAddr(pfx("10.64.0.0/10"))).To(Equal(netip4("10.127.255.255")))
	g.Expect(lastAddr(pfx("10.0.0.1/32"))).To(Equal(netip4("10.0.0.1")))
	g.Expect(translate(netip4("10.244.3.4"), pfx("10.244.0.0/14"), pfx("10.64.0.0/14"))).To(Equal(netip4("10.64.3.4")))
	g.Expect(translate(netip4("10.247.3.4"), pfx("10.244.0.0/14"), pfx("10.64.0.0/14"))).To(Equal(netip4("10.67.3.4")))
}
