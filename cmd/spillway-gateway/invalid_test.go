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

package main

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/spillway-dev/spillway/network/gateway"
)

func TestInvalidStatusIsAnErrorNamingEveryFlag(t *testing.T) {
	g := NewWithT(t)
	o := validOptions(t, func(o *options) { o.localPodCIDR = "10.244.0.0/33"; o.peerPublicKey = "AAAA" })
	_, err := o.parse()
	g.Expect(err).To(HaveOccurred())
	st := invalidStatus(o, err)
	g.Expect(st.Phase).To(Equal(gateway.PhaseError))
	g.Expect(st.RemoteClusterID).To(Equal("milan"))
	g.Expect(st.Reason).To(And(ContainSubstring(`--local-pod-cidr "10.244.0.0/33"`), ContainSubstring("--peer-public-key decodes to 3 bytes")))
	g.Expect(st.Reason).NotTo(ContainSubstring("\n"), "one line, as a condition message")

	reg := prometheus.NewRegistry()
	reg.MustRegister(gateway.NewCollector(func() gateway.Status { return st }))
	g.Expect(testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP liqo_peer_is_connected 1 when the peer answered a probe through the tunnel recently, else 0.
# TYPE liqo_peer_is_connected gauge
liqo_peer_is_connected{remote_cluster_id="milan"} 0
`), "liqo_peer_is_connected")).To(Succeed())
}

func TestMetricsEnabled(t *testing.T) {
	g := NewWithT(t)
	g.Expect(metricsEnabled("127.0.0.1:9100")).To(BeTrue())
	g.Expect(metricsEnabled("0")).To(BeFalse())
	g.Expect(metricsEnabled("")).To(BeFalse())
}
