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
	"errors"
	"testing"
	"time"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/network/gateway"
)

func mapping(id, remote, local string) network.Mapping {
	return network.Mapping{RemoteClusterID: id, Remote: mustPrefix(remote), Local: mustPrefix(local)}
}

func TestStateOf(t *testing.T) {
	now := time.Now()
	started := now.Add(-20 * time.Second)
	running := ProcessState{Running: true, StartedAt: started}
	for _, tc := range []struct {
		name       string
		o          gatewayObservation
		want       Phase
		wantReason string
	}{
		{"connected", gatewayObservation{supervised: true, process: running, written: now,
			status: gateway.Status{Phase: gateway.PhaseConnected, LatencyMicroseconds: 300}}, PhaseConnected, ReasonTunnelConnected},
		{"gateway says error", gatewayObservation{supervised: true, process: running, written: now,
			status: gateway.Status{Phase: gateway.PhaseError, Reason: "no handshake"}}, PhaseError, ReasonTunnelError},
		{"restarting after an exit", gatewayObservation{supervised: true, process: ProcessState{Restarts: 1, StartedAt: started, LastExit: "exit status 1"},
			written: now}, PhaseError, ReasonGatewayExited},
		{"predecessor's file, just started", gatewayObservation{supervised: true, process: ProcessState{Running: true, StartedAt: now},
			written: now.Add(-time.Second), status: gateway.Status{Phase: gateway.PhaseConnected}}, PhaseConnecting, ReasonGatewayStarting},
		{"no file for long", gatewayObservation{supervised: true, process: running, statusErr: errors.New("missing")}, PhaseError, ReasonGatewayNotReporting},
		{"stale file", gatewayObservation{supervised: true, process: running, written: now.Add(-15 * time.Second),
			status: gateway.Status{Phase: gateway.PhaseConnected}}, PhaseError, ReasonGatewayNotReporting},
	} {
		got := stateOf(tc.o, now)
		if got.Phase != tc.want || got.Reason != tc.wantReason {
			t.Errorf("%s: got %s/%s (%s), want %s/%s", tc.name, got.Phase, got.Reason, got.Message, tc.want, tc.wantReason)
		}
	}
}
