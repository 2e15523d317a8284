//go:build e2e

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

package network_test

import (
	"fmt"
	"net"
	"os/exec"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the network fabric", Ordered, func() {
	var fromAToB, fromBToA string // addresses of the other cluster's pod
	BeforeAll(func() {
		for _, c := range []string{"a", "b"} {
			l, err := listenIn(theLab.ns("pod"+c), net.JoinHostPort(podIP, echoPort))
			Expect(err).NotTo(HaveOccurred())
			go serveEcho(l)
			DeferCleanup(l.Close)
		}
		fromAToB = net.JoinHostPort(remapped(aSeesB), echoPort)
		fromBToA = net.JoinHostPort(remapped(bSeesA), echoPort)
	})

	It("connects the gateways over userspace WireGuard with the remap IPAM computed", func() {
		Eventually(func(g Gomega) {
			s, err := statusOf(theLab.ns("gwa"), metricsAddr)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Phase).To(Equal("Connected"), func() string {
				return fmt.Sprintf("a: %s; b: %s", s.Reason, phaseOf(theLab.ns("gwb"), metricsAddr))
			})
			g.Expect(s.Implementation).To(Equal("userspace")) // no WireGuard module on CI
			g.Expect(s.RemappedRemoteCIDR).To(Equal(aSeesB))
		}).WithTimeout(15 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	})

	It("answers a TCP request from a pod of a to the pod of b at its remapped address, and back", func() {
		Eventually(func() (string, error) {
			return echo(theLab.ns("poda"), fromAToB, "hello b")
		}).WithTimeout(10*time.Second).WithPolling(200*time.Millisecond).
			Should(Equal("hello b from "+remapped(bSeesA)), "b's pod sees a's pod at b's remap of a")
		Eventually(func() (string, error) {
			return echo(theLab.ns("podb"), fromBToA, "hello a")
		}).WithTimeout(10*time.Second).WithPolling(200*time.Millisecond).
			Should(Equal("hello a from "+remapped(aSeesB)), "a's pod sees b's pod at a's remap of b")
	})

	It("reports bytes, latency and connectivity for the peer in metrics", func() {
		Eventually(func(g Gomega) {
			body, err := get(theLab.ns("gwa"), "http://"+metricsAddr+"/metrics")
			g.Expect(err).NotTo(HaveOccurred())
			for _, sample := range []string{`liqo_peer_receive_bytes_total{remote_cluster_id="b"}`,
				`liqo_peer_transmit_bytes_total{remote_cluster_id="b"}`, `liqo_peer_latency_us{remote_cluster_id="b"}`} {
				v, err := metric(body, sample)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(v).To(BeNumerically(">", 0), sample)
			}
			g.Expect(metric(body, `liqo_peer_is_connected{remote_cluster_id="b"}`)).To(Equal(1.0))
			g.Expect(metric(body, `liqo_wireguard_implementation{implementation="userspace"}`)).To(Equal(1.0))
			latency, _ := metric(body, `liqo_peer_latency_us{remote_cluster_id="b"}`)
			fmt.Fprintf(GinkgoWriter, "probe latency a->b through the tunnel: %.0f us\n", latency)
		}).WithTimeout(10 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
	})

	It("reports an unreachable peer as not connected, leaving the other peering alone", func() {
		args := unreachablePeering()
		Expect(theLab.startGateway("a-to-c", theLab.ns("gwa"), args)).To(Succeed())
		DeferCleanup(func() { Expect(theLab.procs["a-to-c"].stop(syscall.SIGTERM, 5*time.Second)).To(Succeed()) })
		Eventually(func(g Gomega) {
			s, err := statusOf(theLab.ns("gwa"), "127.0.0.1:9101")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Phase).To(Equal("Error"))
			g.Expect(s.Reason).To(ContainSubstring("no WireGuard handshake with --peer-endpoint " + underlayB + ":51999"))
			body, err := get(theLab.ns("gwa"), "http://127.0.0.1:9101/metrics")
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(metric(body, `liqo_peer_is_connected{remote_cluster_id="c"}`)).To(Equal(0.0))
		}).WithTimeout(15 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
		Expect(echo(theLab.ns("poda"), fromAToB, "still there")).To(HavePrefix("still there from"))
	})

	It("reports bad input as Error naming it, touching nothing, while a to b keeps working", func() {
		goodKey, err := theLab.publicKey("c")
		Expect(err).NotTo(HaveOccurred())
		for i, tc := range []struct{ name, flag, value, want string }{
			{"unparsable CIDR", "--remote-pod-cidr", "10.244.0.0/33", `--remote-pod-cidr "10.244.0.0/33" is not a CIDR`},
			{"remote CIDR overlapping every free pool", "--remote-pod-cidr", "10.0.0.0/8", "no remap pool (10.208.0.0/12) has a free /8"},
			{"public key of the wrong size", "--peer-public-key", "AAAA", "--peer-public-key decodes to 3 bytes, a WireGuard key has 32"},
		} {
			By(tc.name)
			addr := fmt.Sprintf("127.0.0.1:%d", 9102+i)
			args := withFlag(unreachablePeering(), "--metrics-bind-address", addr)
			args = withFlag(withFlag(args, "--peer-public-key", goodKey), tc.flag, tc.value)
			if tc.flag == "--remote-pod-cidr" {
				args = withFlag(args, "--local-pod-cidr", tc.value) // overlap, so IPAM must remap it
				args = withFlag(args, "--remapped-remote-cidr", "")
			}
			name := fmt.Sprintf("bad-%d", i)
			Expect(theLab.startGateway(name, theLab.ns("gwa"), args)).To(Succeed())
			DeferCleanup(func() { Expect(theLab.procs[name].stop(syscall.SIGTERM, 5*time.Second)).To(Succeed()) })
			Eventually(func(g Gomega) {
				s, err := statusOf(theLab.ns("gwa"), addr)
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(s.Phase).To(Equal("Error"))
				g.Expect(s.Reason).To(ContainSubstring(tc.want))
				body, err := get(theLab.ns("gwa"), "http://"+addr+"/metrics")
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(metric(body, `liqo_peer_is_connected{remote_cluster_id="c"}`)).To(Equal(0.0))
			}).WithTimeout(10 * time.Second).WithPolling(200 * time.Millisecond).Should(Succeed())
			Expect(linkExists(theLab.ns("gwa"), theLab.iface("c"))).To(BeFalse(), "a gateway with bad input creates no device")
			Expect(echo(theLab.ns("poda"), fromAToB, "unaffected")).To(HavePrefix("unaffected from"))
		}
	})

	It("restores the path within 10s when b's gateway is killed and started again", func() {
		before, err := statusOf(theLab.ns("gwb"), metricsAddr)
		Expect(err).NotTo(HaveOccurred())
		killed := time.Now()
		Expect(theLab.procs["b"].stop(syscall.SIGKILL, 5*time.Second)).To(Succeed())
		Expect(echo(theLab.ns("poda"), fromAToB, "down")).Error().To(HaveOccurred())
		args, err := theLab.gatewayArgs("b")
		Expect(err).NotTo(HaveOccurred())
		started := time.Now()
		Expect(theLab.startGateway("b", theLab.ns("gwb"), args)).To(Succeed())
		Eventually(func() (string, error) {
			return echo(theLab.ns("poda"), fromAToB, "back")
		}).WithTimeout(10 * time.Second).WithPolling(50 * time.Millisecond).Should(HavePrefix("back from"))
		restored := time.Since(started)
		fmt.Fprintf(GinkgoWriter, "path a->b restored %s after b's gateway was started again (%s after the kill)\n",
			restored.Round(time.Millisecond), time.Since(killed).Round(time.Millisecond))
		Expect(restored).To(BeNumerically("<", 10*time.Second))
		Expect(echo(theLab.ns("podb"), fromBToA, "and back")).To(HavePrefix("and back from"))
		after, err := statusOf(theLab.ns("gwb"), metricsAddr)
		Expect(err).NotTo(HaveOccurred())
		Expect(after.PublicKey).To(Equal(before.PublicKey), "the key file keeps b's identity")
	})
})

// unreachablePeering is a gateway from a to a cluster c whose endpoint has no
// WireGuard behind it (a closed port of b's underlay address, inside the lab).
func unreachablePeering() []string {
	key, err := theLab.publicKey("c")
	Expect(err).NotTo(HaveOccurred())
	return []string{"--cluster-id", "a", "--remote-cluster-id", "c", "--private-key-file", theLab.keyFile("a-to-c"),
		"--peer-public-key", key, "--peer-endpoint", underlayB + ":51999", "--listen-port", "51830",
		"--tunnel-address", "169.254.101.1/30", "--peer-tunnel-address", "169.254.101.2",
		"--local-pod-cidr", podCIDR, "--remote-pod-cidr", podCIDR, "--remapped-remote-cidr", "10.72.0.0/16",
		"--interface-name", theLab.iface("c"), "--metrics-bind-address", "127.0.0.1:9101",
		"--probe-interval", "500ms", "--connect-timeout", "2s"}
}

// withFlag returns args with flag set to value, replacing an earlier value;
// an empty value drops the flag.
func withFlag(args []string, flag, value string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == flag {
			i++
			continue
		}
		out = append(out, args[i])
	}
	if value == "" {
		return out
	}
	return append(out, flag, value)
}

// linkExists reports whether namespace ns has a link named name.
func linkExists(ns, name string) bool {
	return exec.Command("ip", "-n", ns, "link", "show", name).Run() == nil
}
