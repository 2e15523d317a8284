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
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"time"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"
)

// keepalive keeps a quiet tunnel's NAT mappings open. It is not what
// brings a restarted peer back: the probes, every --probe-interval, are
// traffic, and traffic starts a handshake. It must not be WireGuard's 5 s
// rekey timeout: a persistent keepalive has no jitter, so two gateways
// configured in the same millisecond re-initiated every 5 s in lockstep and
// their crossing initiations cancelled each other each time (in the network
// suite, no handshake within 15 s in 1 run of 25); at 25 s the handshake
// retransmits, which are jittered, come first.
const keepalive = 25 * time.Second

// errAnswering is why there was no probe while the gateway only answers.
var errAnswering = errors.New("not probed yet: this gateway leaves the first handshake to its peer")

// answerFor is how long the gateway that does not open the tunnel (see
// opensFirst) only answers: it sends no probe and no keepalive until a
// handshake has happened or this long after it started, when it initiates
// like its peer (pod traffic, if any, initiates regardless). Two
// gateways started together configure their peers well within it (10-50 ms
// apart in the network suite), so an opener that starts second initiates
// first. An opener that starts first initiates before its peer is
// configured, and WireGuard drops that initiation; the answering gateway's
// own then opens the tunnel, this long after it started. It is also what a
// restarted answering gateway waits before it initiates (its peer, holding
// the old session, would not for up to 15 s), so it is kept short.
const answerFor = 500 * time.Millisecond

// opensFirst tells whether the gateway of key own initiates the first
// handshake with the gateway of key peer, or leaves it to the peer. Both
// ends compute it from the same two keys, so exactly one opens. When both
// initiate together, the initiations cross: each side answers the other's
// and drops the answer to its own, and neither has a session until
// WireGuard retransmits 5 s later. Configuring a peer with a persistent
// keepalive initiates at once, and two gateways started together configure
// their peers within milliseconds: 1 start in 100 of the network suite's
// fabric took 5.1 s, not 0.5 s, and when the CPU is busy a crossing can
// repeat on the retransmits.
func opensFirst(own, peer wgtypes.Key) bool {
	return bytes.Compare(own[:], peer[:]) < 0
}

// answering tells whether a gateway that does not open the tunnel still
// holds its probes and keepalive: no handshake yet, elapsed since it started.
func answering(opens bool, elapsed time.Duration, lastHandshake time.Time) bool {
	return !opens && lastHandshake.IsZero() && elapsed < answerFor
}

// configuredPeer is how the peer was last configured on the device.
type configuredPeer struct {
	endpoint  string // the address its --peer-endpoint resolved to
	keepalive bool   // whether the persistent keepalive is on
}

// loop probes the peer every interval, refreshing the observation and status.
//
// The probes start a random part of an interval after the peer is
// configured, so that two gateways started together do not probe in
// lockstep. Who initiates the first handshake is opensFirst's choice: until
// a handshake, the other gateway configures its peer without the keepalive
// and sends no probe, so that it only answers (see answering).
func (g *Gateway) loop(ctx context.Context, probe *prober) {
	g.obs.started = time.Now()
	opens := opensFirst(g.cfg.PrivateKey.PublicKey(), g.cfg.PeerPublicKey)
	peer := g.ensurePeer(configuredPeer{}, opens)
	select {
	case <-ctx.Done():
		return
	case <-time.After(rand.N(g.cfg.ProbeInterval)):
	}
	ticker := time.NewTicker(g.cfg.ProbeInterval)
	defer ticker.Stop()
	var answered <-chan time.Time // when an answering gateway starts to initiate
	if wait := answerFor - time.Since(g.obs.started); !opens && wait > 0 {
		answered = time.After(wait)
	}
	for {
		held := answering(opens, time.Since(g.obs.started), g.obs.lastHandshake)
		peer = g.ensurePeer(peer, !held)
		g.probeOnce(probe, !held)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		case <-answered: // at once, not at the next probe
			answered = nil
		}
	}
}

// ensurePeer (re)configures the peer when its endpoint resolves to a new
// address, turns its keepalive on when wanted, and records why when the
// endpoint does not resolve.
func (g *Gateway) ensurePeer(peer configuredPeer, wantKeepalive bool) configuredPeer {
	addr, err := net.ResolveUDPAddr("udp", g.cfg.PeerEndpoint)
	if err != nil && peer.endpoint != "" {
		return peer // a DNS hiccup: keep the address that worked
	}
	if err != nil {
		g.obs.peerErr = fmt.Errorf("--peer-endpoint %s does not resolve (%w): fix the host name or use an IP address", g.cfg.PeerEndpoint, err)
		return peer
	}
	withKeepalive := wantKeepalive || peer.keepalive // never turned off again
	if addr.String() == peer.endpoint && g.obs.peerErr == nil {
		if withKeepalive && !peer.keepalive {
			return g.turnKeepaliveOn(peer)
		}
		return peer
	}
	if err := g.wg.ConfigureDevice(g.cfg.Interface, g.peerConfig(addr, withKeepalive)); err != nil {
		g.obs.peerErr = fmt.Errorf("configuring peer %s on %s: %w", g.cfg.PeerPublicKey, g.cfg.Interface, err)
		return peer
	}
	g.obs.peerErr = nil
	g.cfg.Log.Info("peer configured", "endpoint", addr.String(), "peerPublicKey", g.cfg.PeerPublicKey.String(), "opensHandshake", withKeepalive)
	return configuredPeer{endpoint: addr.String(), keepalive: withKeepalive}
}

// turnKeepaliveOn updates the configured peer in place (see keepaliveOn).
func (g *Gateway) turnKeepaliveOn(peer configuredPeer) configuredPeer {
	if err := g.wg.ConfigureDevice(g.cfg.Interface, keepaliveOn(g.cfg.PeerPublicKey)); err != nil {
		g.obs.peerErr = fmt.Errorf("turning on the keepalive to peer %s on %s: %w", g.cfg.PeerPublicKey, g.cfg.Interface, err)
		return peer
	}
	peer.keepalive = true
	return peer
}

// keepaliveOn sets only the keepalive of peer: replacing the peer would drop
// the session just made. Turning the keepalive on sends one at once, which
// initiates a handshake when there is no session (WireGuard sends at most
// one initiation per 5 s).
func keepaliveOn(peer wgtypes.Key) wgtypes.Config {
	ka := keepalive
	return wgtypes.Config{Peers: []wgtypes.PeerConfig{{PublicKey: peer, UpdateOnly: true, PersistentKeepaliveInterval: &ka}}}
}

// peerConfig lets through the tunnel the peer's tunnel address and its real
// pod CIDR: remapping happens outside WireGuard, so the tunnel carries real
// addresses. Without the keepalive, configuring the peer sends nothing itself.
func (g *Gateway) peerConfig(endpoint *net.UDPAddr, withKeepalive bool) wgtypes.Config {
	var ka time.Duration
	if withKeepalive {
		ka = keepalive
	}
	peerTunnel := ipNet(netipPrefixHost(g.cfg.PeerTunnelAddress))
	return wgtypes.Config{ReplacePeers: true, Peers: []wgtypes.PeerConfig{{
		PublicKey: g.cfg.PeerPublicKey, Endpoint: endpoint, PersistentKeepaliveInterval: &ka,
		ReplaceAllowedIPs: true, AllowedIPs: []net.IPNet{*peerTunnel, *ipNet(g.cfg.Mapping.Remote)},
	}}}
}

// probeOnce pings the peer, reads its counters and re-evaluates the phase. A
// probe that overlapped a handshake measured the handshake, not the path, so
// it proves connectivity but leaves the latency as it was.
//
// A gateway still answering (send false) reads the counters and the
// handshake without pinging: a ping would initiate a handshake.
func (g *Gateway) probeOnce(probe *prober, send bool) {
	start := time.Now()
	rtt, err := time.Duration(0), errAnswering
	if send {
		rtt, err = probe.ping(min(g.cfg.ProbeInterval, time.Second))
	}
	stats := g.peerStats()
	g.obs.probeErr, g.obs.lastHandshake = err, stats.LastHandshakeTime
	if err == nil {
		g.obs.lastReply = time.Now()
	}
	phase, reason := evaluate(g.obs, time.Now(), connectionRules{probeInterval: g.cfg.ProbeInterval,
		connectTimeout: g.cfg.ConnectTimeout, endpoint: g.cfg.PeerEndpoint, publicKey: g.status.PublicKey})
	g.mu.Lock()
	old := g.status.Phase
	if err == nil && stats.LastHandshakeTime.Before(start) {
		g.status.LatencyMicroseconds = max(rtt.Microseconds(), 1)
	}
	g.status.Phase, g.status.Reason = phase, reason
	g.status.ReceiveBytes, g.status.TransmitBytes, g.status.LastHandshake = stats.ReceiveBytes, stats.TransmitBytes, stats.LastHandshakeTime
	latency := g.status.LatencyMicroseconds
	g.mu.Unlock()
	if phase != old {
		g.cfg.Log.Info("peering phase changed", "from", old, "to", phase, "reason", reason, "latencyMicroseconds", latency)
	}
}

// peerStats reads the peer's counters and last handshake from wgctrl; zero
// when the device cannot be read, which the phase then reflects.
func (g *Gateway) peerStats() wgtypes.Peer {
	dev, err := g.wg.Device(g.cfg.Interface)
	if err != nil {
		return wgtypes.Peer{}
	}
	for _, p := range dev.Peers {
		if p.PublicKey == g.cfg.PeerPublicKey {
			return p
		}
	}
	return wgtypes.Peer{}
}
