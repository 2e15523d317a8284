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

package lab

import (
	"errors"
	"net"
	"net/netip"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
)

func TestAllocatePortsAreDistinctAcrossClusters(t *testing.T) {
	g := NewWithT(t)
	seen := map[int]string{}
	for i := 0; i < 10; i++ {
		p, err := AllocatePorts(DefaultPortBase, i)
		g.Expect(err).NotTo(HaveOccurred())
		for name, port := range p.All() {
			owner, dup := seen[port]
			g.Expect(dup).To(BeFalse(), "port %d of %s in cluster %d already used by %s", port, name, i, owner)
			seen[port] = name + "/" + strconv.Itoa(i)
		}
	}
}

func TestAllocatePortsIsStable(t *testing.T) {
	g := NewWithT(t)
	a, _ := AllocatePorts(20000, 3)
	b, _ := AllocatePorts(20000, 3)
	g.Expect(a).To(Equal(b))
}

func TestAllocatePortsRejectsOutOfRange(t *testing.T) {
	g := NewWithT(t)
	_, err := AllocatePorts(65530, 0)
	g.Expect(err).To(MatchError(ContainSubstring("--port-base")))
	_, err = AllocatePorts(80, 0)
	g.Expect(err).To(HaveOccurred())
}

func TestCheckPortFreeDetectsTakenPort(t *testing.T) {
	g := NewWithT(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	err = CheckPortFree(port)
	g.Expect(errors.Is(err, ErrPortTaken)).To(BeTrue(), "got %v", err)
	g.Expect(err.Error()).To(ContainSubstring(strconv.Itoa(port)))
	l.Close()
	g.Expect(CheckPortFree(port)).To(Succeed())
}

func TestAllocateCIDRsDisjointUnlessOverlapRequested(t *testing.T) {
	g := NewWithT(t)
	var prefixes []netip.Prefix
	for i := 0; i < maxClusters; i++ {
		c, err := AllocateCIDRs(i, false)
		g.Expect(err).NotTo(HaveOccurred())
		for _, s := range []string{c.Pod, c.Service} {
			p := netip.MustParsePrefix(s)
			for _, q := range prefixes {
				g.Expect(p.Overlaps(q)).To(BeFalse(), "%s overlaps %s", p, q)
			}
			prefixes = append(prefixes, p)
		}
	}
	a, _ := AllocateCIDRs(0, true)
	b, _ := AllocateCIDRs(5, true)
	g.Expect(a).To(Equal(b))
	g.Expect(netip.MustParsePrefix(a.Pod).Overlaps(netip.MustParsePrefix(a.Service))).To(BeFalse())
	_, err := AllocateCIDRs(maxClusters, false)
	g.Expect(err).To(MatchError(ContainSubstring("at most")))
}

func TestFirstServiceIP(t *testing.T) {
	g := NewWithT(t)
	ip, err := FirstServiceIP("10.96.0.0/16")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ip.String()).To(Equal("10.96.0.1"))
	_, err = FirstServiceIP("10.96.0.0/33")
	g.Expect(err).To(MatchError(ContainSubstring("10.96.0.0/33")))
}
