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
	"fmt"
	"time"
)

// Phase is a peering's connectivity as the gateway sees it.
type Phase string

const (
	// PhaseConnected means the peer's gateway answered a probe through the tunnel recently.
	PhaseConnected Phase = "Connected"
	// PhaseConnecting means no recent answer yet, for less than the connect timeout.
	PhaseConnecting Phase = "Connecting"
	// PhaseError means setup failed, or no answer for longer than the connect timeout.
	PhaseError Phase = "Error"
)

// Status is what a gateway reports about its peering, on /status and in metrics.
type Status struct {
	ClusterID            string         `json:"clusterID"`
	RemoteClusterID      string         `json:"remoteClusterID"`
	Interface            string         `json:"interface"`
	Implementation       Implementation `json:"implementation"`
	ImplementationReason string         `json:"implementationReason,omitempty"`
	PublicKey            string         `json:"publicKey"`
	PeerEndpoint         string         `json:"peerEndpoint"`
	RemotePodCIDR        string         `json:"remotePodCIDR"`
	RemappedRemoteCIDR   string         `json:"remappedRemoteCIDR"`
	Phase                Phase          `json:"phase"`
	// Reason says why the phase is not Connected, and what to check.
	Reason              string    `json:"reason,omitempty"`
	LatencyMicroseconds int64     `json:"latencyMicroseconds"`
	LastHandshake       time.Time `json:"lastHandshake,omitzero"`
	ReceiveBytes        int64     `json:"receiveBytes"`
	TransmitBytes       int64     `json:"transmitBytes"`
}

// observation is what the gateway has seen of its peer; evaluate turns it
// into a phase without trusting any earlier verdict.
type observation struct {
	peerErr       error // the endpoint does not resolve, or wgctrl failed
	probeErr      error // why the last probe got no answer
	started       time.Time
	lastReply     time.Time
	lastHandshake time.Time
}

// connectionRules are the timings evaluate judges by.
type connectionRules struct {
	probeInterval  time.Duration
	connectTimeout time.Duration // Connecting turns into Error after this long
	endpoint       string
	publicKey      string
}

// rejectAfter is WireGuard's session lifetime: an older handshake is dead.
const rejectAfter = 180 * time.Second

func evaluate(o observation, now time.Time, r connectionRules) (Phase, string) {
	if o.peerErr != nil {
		return PhaseError, o.peerErr.Error()
	}
	if !o.lastReply.IsZero() && now.Sub(o.lastReply) <= 3*r.probeInterval {
		return PhaseConnected, ""
	}
	since := o.started
	if o.lastReply.After(since) {
		since = o.lastReply
	}
	phase := PhaseConnecting
	if now.Sub(since) > r.connectTimeout {
		phase = PhaseError
	}
	return phase, waitingReason(o, now, r)
}

func waitingReason(o observation, now time.Time, r connectionRules) string {
	lost := ""
	if !o.lastReply.IsZero() {
		lost = fmt.Sprintf("no probe reply for %s; ", now.Sub(o.lastReply).Round(time.Second))
	}
	if o.lastHandshake.IsZero() || now.Sub(o.lastHandshake) > rejectAfter {
		return lost + fmt.Sprintf("no WireGuard handshake with --peer-endpoint %s: check that the peer gateway runs, "+
			"listens on that UDP port, and was given this gateway's public key %s as its --peer-public-key", r.endpoint, r.publicKey)
	}
	probe := ""
	if o.probeErr != nil {
		probe = " (" + o.probeErr.Error() + ")"
	}
	return lost + fmt.Sprintf("last WireGuard handshake with --peer-endpoint %s was %s ago but the peer's probe responder does not answer%s: "+
		"check that the path to the peer is up, then --peer-tunnel-address and --probe-port on both gateways",
		r.endpoint, now.Sub(o.lastHandshake).Round(time.Second), probe)
}
