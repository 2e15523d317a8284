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
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestEvaluate(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := connectionRules{probeInterval: time.Second, connectTimeout: 10 * time.Second, endpoint: "198.18.0.2:51820", publicKey: "PUB"}
	cases := []struct {
		name       string
		obs        observation
		now        time.Time
		want       Phase
		wantReason string
	}{
		{"fresh reply", observation{started: t0, lastReply: t0.Add(5 * time.Second)}, t0.Add(6 * time.Second), PhaseConnected, ""},
		{"starting, no handshake", observation{started: t0}, t0.Add(2 * time.Second), PhaseConnecting,
			"no WireGuard handshake with --peer-endpoint 198.18.0.2:51820: check that the peer gateway runs"},
		{"unreachable for too long", observation{started: t0}, t0.Add(11 * time.Second), PhaseError,
			"this gateway's public key PUB as its --peer-public-key"},
		{"handshake but no responder", observation{started: t0, lastHandshake: t0.Add(time.Second), probeErr: errors.New("no probe reply within 1s")},
			t0.Add(3 * time.Second), PhaseConnecting, "with --peer-endpoint 198.18.0.2:51820 was 2s ago but the peer's probe responder does not answer (no probe reply within 1s): check that the path to the peer is up"},
		{"lost after being connected", observation{started: t0, lastReply: t0.Add(20 * time.Second)}, t0.Add(25 * time.Second), PhaseConnecting,
			"no probe reply for 5s; no WireGuard handshake"},
		{"lost for longer than the timeout", observation{started: t0, lastReply: t0.Add(20 * time.Second)}, t0.Add(31 * time.Second), PhaseError, "no probe reply for 11s"},
		{"stale handshake counts as none", observation{started: t0, lastHandshake: t0}, t0.Add(200 * time.Second), PhaseError, "no WireGuard handshake"},
		{"endpoint does not resolve", observation{started: t0, peerErr: errors.New("--peer-endpoint x:1 does not resolve")}, t0, PhaseError, "--peer-endpoint x:1 does not resolve"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			phase, reason := evaluate(tc.obs, tc.now, rules)
			g.Expect(phase).To(Equal(tc.want))
			if tc.wantReason == "" {
				g.Expect(reason).To(BeEmpty())
			} else {
				g.Expect(reason).To(ContainSubstring(tc.wantReason))
			}
		})
	}
}
