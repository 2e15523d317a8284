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

package fabric

import (
	"fmt"
	"time"

	"github.com/spillway-dev/spillway/network/gateway"
)

// Phase is a peering's network state as the controllers report it.
type Phase string

const (
	// PhasePending means the peer has not published its parameters yet.
	PhasePending Phase = "Pending"
	// PhaseConnecting means the gateway runs but the peer has not answered yet.
	PhaseConnecting Phase = "Connecting"
	// PhaseConnected means the peer's gateway answers through the tunnel.
	PhaseConnected Phase = "Connected"
	// PhaseError means something a person must fix; the reason says what.
	PhaseError Phase = "Error"
)

// Reasons of a State; each names one thing to look at.
const (
	ReasonWaitingForPeer        = "WaitingForPeerParameters"
	ReasonInvalidPeerParameters = "InvalidPeerParameters"
	ReasonRemapFailed           = "RemapFailed"
	ReasonGatewayStarting       = "GatewayStarting"
	ReasonGatewayExited         = "GatewayExited"
	ReasonGatewayNotReporting   = "GatewayNotReporting"
	ReasonTunnelConnecting      = "TunnelConnecting"
	ReasonTunnelConnected       = "TunnelConnected"
	ReasonTunnelError           = "TunnelError"
)

// staleAfter is how old a status file may be before the gateway counts as
// silent; gateways rewrite it every second.
const staleAfter = 10 * time.Second

// State is a peering's network state.
type State struct {
	Phase   Phase
	Reason  string
	Message string
	Latency time.Duration
}

func pending(source string) State {
	return State{Phase: PhasePending, Reason: ReasonWaitingForPeer,
		Message: fmt.Sprintf("waiting for the peer's gateway parameters in %s: the peer's manager writes them once it runs with --gateway-address", source)}
}

// gatewayObservation is what one look at a gateway found.
type gatewayObservation struct {
	supervised bool
	process    ProcessState
	status     gateway.Status
	statusErr  error
	written    time.Time
}

// stateOf turns an observation into a State; a status file written before
// the current process started belongs to its predecessor and is ignored.
func stateOf(o gatewayObservation, now time.Time) State {
	fresh := o.statusErr == nil && !o.written.Before(o.process.StartedAt)
	switch {
	case !o.supervised || (!o.process.Running && o.process.Restarts == 0):
		return State{Phase: PhaseConnecting, Reason: ReasonGatewayStarting, Message: "the gateway is being started"}
	case !o.process.Running && o.process.Restarts > 0:
		return State{Phase: PhaseError, Reason: ReasonGatewayExited,
			Message: fmt.Sprintf("the gateway exited (%d restarts so far) and is being restarted: %s", o.process.Restarts, clip(o.process.LastExit, 512))}
	case !fresh && now.Sub(o.process.StartedAt) < staleAfter:
		return State{Phase: PhaseConnecting, Reason: ReasonGatewayStarting, Message: "the gateway started and has not reported yet"}
	case !fresh || now.Sub(o.written) > staleAfter:
		return State{Phase: PhaseError, Reason: ReasonGatewayNotReporting,
			Message: fmt.Sprintf("the gateway has not written its status file for %s: check the manager's log for its output", staleAfter)}
	}
	s := o.status
	switch s.Phase {
	case gateway.PhaseConnected:
		lat := time.Duration(s.LatencyMicroseconds) * time.Microsecond
		return State{Phase: PhaseConnected, Reason: ReasonTunnelConnected, Latency: lat,
			Message: fmt.Sprintf("tunnel %s to %s up (%s WireGuard), round trip %s; remote pod CIDR %s reached at %s",
				s.Interface, s.PeerEndpoint, s.Implementation, lat, s.RemotePodCIDR, s.RemappedRemoteCIDR)}
	case gateway.PhaseError:
		return State{Phase: PhaseError, Reason: ReasonTunnelError, Message: s.Reason}
	default:
		return State{Phase: PhaseConnecting, Reason: ReasonTunnelConnecting, Message: s.Reason}
	}
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
