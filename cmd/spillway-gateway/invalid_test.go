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
