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
	"context"
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

// loop probes the peer every interval, refreshing the observation and status.
//
// The probes start a random part of an interval after the peer is
// configured. Without a session, a probe is what makes WireGuard initiate a
// handshake (at most every 5 s), so two gateways started together would
// probe, and initiate, in lockstep; initiations crossing on the wire cancel
// each other (each side answers the other's and then drops the answer to its
// own), and in lockstep they cross every time. Seen in the network suite:
// no handshake within 15 s in 1 run of 25.
func (g *Gateway) loop(ctx context.Context, probe *prober) {
	g.obs.started = time.Now()
	configured := g.ensurePeer("") // the endpoint the peer was last configured with
	select {
	case <-ctx.Done():
		return
	case <-time.After(rand.N(g.cfg.ProbeInterval)):
	}
	ticker := time.NewTicker(g.cfg.ProbeInterval)
	defer ticker.Stop()
	for {
		configured = g.ensurePeer(configured)
		g.probeOnce(probe)
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// ensurePeer (re)configures the peer when its endpoint resolves to a new
// address, and records why when it does not resolve.
func (g *Gateway) ensurePeer(configured string) string {
	addr, err := net.ResolveUDPAddr("udp", g.cfg.PeerEndpoint)
	if err != nil && configured != "" {
		return configured // a DNS hiccup: keep the address that worked
	}
	if err != nil {
		g.obs.peerErr = fmt.Errorf("--peer-endpoint %s does not resolve (%w): fix the host name or use an IP address", g.cfg.PeerEndpoint, err)
		return configured
	}
	if addr.String() == configured && g.obs.peerErr == nil {
		return configured
	}
	if err := g.wg.ConfigureDevice(g.cfg.Interface, g.peerConfig(addr)); err != nil {
		g.obs.peerErr = fmt.Errorf("configuring peer %s on %s: %w", g.cfg.PeerPublicKey, g.cfg.Interface, err)
		return configured
	}
	g.obs.peerErr = nil
	g.cfg.Log.Info("peer configured", "endpoint", addr.String(), "peerPublicKey", g.cfg.PeerPublicKey.String())
	return addr.String()
}

// peerConfig lets through the tunnel the peer's tunnel address and its real
// pod CIDR: remapping happens outside WireGuard, so the tunnel carries real addresses.
func (g *Gateway) peerConfig(endpoint *net.UDPAddr) wgtypes.Config {
	ka := keepalive
	peerTunnel := ipNet(netipPrefixHost(g.cfg.PeerTunnelAddress))
	return wgtypes.Config{ReplacePeers: true, Peers: []wgtypes.PeerConfig{{
		PublicKey: g.cfg.PeerPublicKey, Endpoint: endpoint, PersistentKeepaliveInterval: &ka,
		ReplaceAllowedIPs: true, AllowedIPs: []net.IPNet{*peerTunnel, *ipNet(g.cfg.Mapping.Remote)},
	}}}
}

// probeOnce pings the peer, reads its counters and re-evaluates the phase. A
// probe that overlapped a handshake measured the handshake, not the path, so
// it proves connectivity but leaves the latency as it was.
func (g *Gateway) probeOnce(probe *prober) {
	start := time.Now()
	rtt, err := probe.ping(min(g.cfg.ProbeInterval, time.Second))
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
