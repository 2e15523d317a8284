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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestCollectorReportsStatus(t *testing.T) {
	g := NewWithT(t)
	s := Status{RemoteClusterID: "milan", Implementation: ImplementationUserspace, Phase: PhaseConnected,
		LatencyMicroseconds: 420, ReceiveBytes: 1000, TransmitBytes: 2000}
	c := NewCollector(func() Status { return s })
	want := `
# HELP liqo_peer_is_connected 1 when the peer answered a probe through the tunnel recently, else 0.
# TYPE liqo_peer_is_connected gauge
liqo_peer_is_connected{remote_cluster_id="milan"} 1
# HELP liqo_peer_latency_us Round-trip time of the last answered UDP probe through the tunnel, in microseconds.
# TYPE liqo_peer_latency_us gauge
liqo_peer_latency_us{remote_cluster_id="milan"} 420
# HELP liqo_peer_receive_bytes_total Bytes received from the peer through the tunnel since the gateway started.
# TYPE liqo_peer_receive_bytes_total counter
liqo_peer_receive_bytes_total{remote_cluster_id="milan"} 1000
# HELP liqo_peer_transmit_bytes_total Bytes sent to the peer through the tunnel since the gateway started.
# TYPE liqo_peer_transmit_bytes_total counter
liqo_peer_transmit_bytes_total{remote_cluster_id="milan"} 2000
# HELP liqo_wireguard_implementation WireGuard implementation of the gateway: 1 for the one in use.
# TYPE liqo_wireguard_implementation gauge
liqo_wireguard_implementation{implementation="kernel"} 0
liqo_wireguard_implementation{implementation="userspace"} 1
`
	g.Expect(testutil.CollectAndCompare(c, strings.NewReader(want))).To(Succeed())

	s.Phase = PhaseError
	g.Expect(testutil.CollectAndCompare(c, strings.NewReader(`
# HELP liqo_peer_is_connected 1 when the peer answered a probe through the tunnel recently, else 0.
# TYPE liqo_peer_is_connected gauge
liqo_peer_is_connected{remote_cluster_id="milan"} 0
`), "liqo_peer_is_connected")).To(Succeed())
}

func TestParseImplementation(t *testing.T) {
	g := NewWithT(t)
	for _, s := range []string{"auto", "kernel", "userspace"} {
		i, err := ParseImplementation(s)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(string(i)).To(Equal(s))
	}
	_, err := ParseImplementation("boringtun")
	g.Expect(err).To(MatchError(`--wireguard-implementation "boringtun" is not one of auto, kernel, userspace`))
}
