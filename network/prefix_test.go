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
