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

package gateway

import (
	"net"
	"net/netip"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// The probe pair is exercised on loopback; through the tunnel it is the same code.
func TestProbeMeasuresRoundTrip(t *testing.T) {
	g := NewWithT(t)
	lo := netip.MustParseAddr("127.0.0.1")
	r, err := listenResponder(netip.AddrPortFrom(lo, 0))
	g.Expect(err).NotTo(HaveOccurred())
	defer r.Close()
	p, err := dialProber(lo, r.conn.LocalAddr().(*net.UDPAddr).AddrPort())
	g.Expect(err).NotTo(HaveOccurred())
	defer p.Close()
	for range 3 {
		rtt, err := p.ping(time.Second)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rtt).To(BeNumerically(">", 0))
	}
}

func TestProbeFailsWithoutResponder(t *testing.T) {
	g := NewWithT(t)
	lo := netip.MustParseAddr("127.0.0.1")
	r, err := listenResponder(netip.AddrPortFrom(lo, 0))
	g.Expect(err).NotTo(HaveOccurred())
	silent := r.conn.LocalAddr().(*net.UDPAddr).AddrPort()
	g.Expect(r.Close()).To(Succeed()) // nothing listens there any more
	p, err := dialProber(lo, silent)
	g.Expect(err).NotTo(HaveOccurred())
	defer p.Close()
	_, err = p.ping(200 * time.Millisecond)
	g.Expect(err).To(HaveOccurred())
}
