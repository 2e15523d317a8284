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
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/spillway-dev/spillway/network"
)

func TestExactlyOneOfTwoGatewaysOpensTheTunnel(t *testing.T) {
	g := NewWithT(t)
	for range 50 {
		a, err := wgtypes.GeneratePrivateKey()
		g.Expect(err).NotTo(HaveOccurred())
		b, err := wgtypes.GeneratePrivateKey()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(opensFirst(a.PublicKey(), b.PublicKey())).NotTo(Equal(opensFirst(b.PublicKey(), a.PublicKey())),
			"both ends decide from the same two keys, and exactly one of them opens")
	}
}

func TestAGatewayThatDoesNotOpenOnlyAnswersUntilAHandshakeOrAnswerFor(t *testing.T) {
	g := NewWithT(t)
	handshake := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	g.Expect(answering(true, 0, time.Time{})).To(BeFalse(), "the gateway that opens initiates at once")
	g.Expect(answering(false, 0, time.Time{})).To(BeTrue(), "the other one waits for its initiation")
	g.Expect(answering(false, answerFor-time.Millisecond, time.Time{})).To(BeTrue())
	g.Expect(answering(false, time.Millisecond, handshake)).To(BeFalse(), "a handshake ends the wait")
	g.Expect(answering(false, answerFor, time.Time{})).To(BeFalse(),
		"a peer that cannot reach this gateway still gets an initiation from it")
	g.Expect(answerFor).To(BeNumerically("<", 5*time.Second), "it initiates before WireGuard's first retransmit")
}

func TestOnlyTheGatewayThatOpensConfiguresItsPeerWithTheKeepalive(t *testing.T) {
	g := NewWithT(t)
	peerKey, err := wgtypes.GeneratePrivateKey()
	g.Expect(err).NotTo(HaveOccurred())
	gw := New(Config{PeerPublicKey: peerKey.PublicKey(), PeerTunnelAddress: netip.MustParseAddr("169.254.100.2"),
		Mapping: network.Mapping{Remote: netip.MustParsePrefix("10.244.0.0/16")}})
	endpoint := &net.UDPAddr{IP: net.ParseIP("198.18.0.2"), Port: 51820}
	// A keepalive turned on sends one at once, and so initiates a handshake.
	withKA := gw.peerConfig(endpoint, true).Peers[0]
	g.Expect(*withKA.PersistentKeepaliveInterval).To(Equal(keepalive))
	without := gw.peerConfig(endpoint, false).Peers[0]
	g.Expect(without.PersistentKeepaliveInterval).NotTo(BeNil(), "the interval is set to 0, not left as it was")
	g.Expect(*without.PersistentKeepaliveInterval).To(BeZero())
	g.Expect(without.AllowedIPs).To(Equal(withKA.AllowedIPs))
}

func TestTurningTheKeepaliveOnLeavesThePeerAndItsSessionAsTheyAre(t *testing.T) {
	g := NewWithT(t)
	peerKey, err := wgtypes.GeneratePrivateKey()
	g.Expect(err).NotTo(HaveOccurred())
	update := keepaliveOn(peerKey.PublicKey())
	g.Expect(update.ReplacePeers).To(BeFalse(), "replacing the peers would drop the session")
	g.Expect(update.Peers).To(HaveLen(1))
	p := update.Peers[0]
	g.Expect(p.PublicKey).To(Equal(peerKey.PublicKey()))
	g.Expect(p.UpdateOnly).To(BeTrue(), "a peer removed meanwhile is not created again")
	g.Expect(p.Endpoint).To(BeNil())
	g.Expect(p.ReplaceAllowedIPs).To(BeFalse())
	g.Expect(p.AllowedIPs).To(BeEmpty())
	g.Expect(p.PersistentKeepaliveInterval).NotTo(BeNil())
	g.Expect(*p.PersistentKeepaliveInterval).To(Equal(keepalive))
}
