//go:build bench

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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestThroughput measures TCP throughput, in one run on one lab, over the raw
// underlay veth, through a plain userspace relay in each gateway namespace
// (the reference for a path that crosses user space, bench_relay_test.go),
// through the WireGuard tunnel between the gateways, and from pod to pod
// through the tunnel with NAT remapping on both ends. What is
// simulated: both clusters are network namespaces of this one host, the
// underlay is a veth between them, and the endpoints are goroutines of this
// test process streaming over real TCP sockets; gateways, endpoints and the
// kernel's network work share the host's cores. Not in CI:
//
//	go test -tags bench -run TestThroughput -v ./e2e/suites/network/
//
// SPILLWAY_BENCH_SECONDS sets each measurement's length (default 3),
// SPILLWAY_BENCH_RUNS how many times each path is measured (default 1; the
// median is printed when more), and SPILLWAY_BENCH_PPROF=<dir> starts the
// gateways with --pprof-bind-address and writes a CPU profile of each
// gateway and of this process (both endpoints) per transfer into dir.
// SPILLWAY_BENCH_GATEWAY_ENV adds space-separated NAME=value pairs to the
// gateways' environment only (e.g. GOMAXPROCS=1), to try runtime settings
// without changing the endpoints in this process. SPILLWAY_BENCH_UNDERLAY_MTU
// sets the underlay veths' MTU (default 1500) and the tunnel's --mtu 80 bytes
// below it, to tell per-packet costs from per-byte ones.
// After each transfer it prints the CPU the machine, each gateway and the
// endpoints used during it.
func TestThroughput(t *testing.T) {
	if reason := hostSupport(); reason != "" {
		t.Skip(reason)
	}
	seconds, runs := benchEnvInt(t, "SPILLWAY_BENCH_SECONDS", 3), benchEnvInt(t, "SPILLWAY_BENCH_RUNS", 1)
	pprofDir := os.Getenv("SPILLWAY_BENCH_PPROF")
	var extraArgs []string
	if pprofDir != "" {
		if err := os.MkdirAll(pprofDir, 0o755); err != nil {
			t.Fatalf("SPILLWAY_BENCH_PPROF=%s: %v", pprofDir, err)
		}
		extraArgs = []string{"--pprof-bind-address", pprofAddr}
	}
	underlayMTU := benchEnvInt(t, "SPILLWAY_BENCH_UNDERLAY_MTU", 1500)
	if underlayMTU != 1500 {
		extraArgs = append(extraArgs, "--mtu", strconv.Itoa(underlayMTU-80))
	}
	l := newLab(t.TempDir(), io.Discard)
	l.gatewayEnv = strings.Fields(os.Getenv("SPILLWAY_BENCH_GATEWAY_ENV"))
	for _, kv := range l.gatewayEnv {
		if name, _, ok := strings.Cut(kv, "="); !ok || name == "" {
			t.Fatalf("SPILLWAY_BENCH_GATEWAY_ENV: %q is not NAME=value", kv)
		}
	}
	t.Cleanup(func() {
		if err := l.destroy(); err != nil {
			t.Error(err)
		}
	})
	startLab(t, l, underlayMTU, extraArgs...)
	// The sink listens on addr; the sender dials dial. a's pod reaches b's at
	// a's remap; the relay path's sender dials a's relay, and its sink listens
	// where b's relay delivers (bench_relay_test.go).
	paths := []struct{ name, slug, from, to, addr, dial string }{
		{"raw veth (underlay)", "raw", l.ns("gwa"), l.ns("gwb"), net.JoinHostPort(underlayB, "5201"), net.JoinHostPort(underlayB, "5201")},
		{"userspace relay (socket copy)", "relay", l.ns("gwa"), l.ns("gwb"), net.JoinHostPort("127.0.0.1", relaySink), net.JoinHostPort(underlayA, relayAPort)},
		{"WireGuard tunnel (userspace)", "tunnel", l.ns("gwa"), l.ns("gwb"), net.JoinHostPort(tunnelB, "5202"), net.JoinHostPort(tunnelB, "5202")},
		{"tunnel + NAT remap, pod to pod", "nat", l.ns("poda"), l.ns("podb"), net.JoinHostPort(podIP, "5203"), net.JoinHostPort(remapped(aSeesB), "5203")},
	}
	// Packets the kernel hands wireguard-go on a's TUN, the UDP datagrams on
	// the underlay, and what wireguard-go writes to b's TUN: with the TUN
	// offload path (IFF_VNET_HDR, TSO, GRO) and UDP GSO/GRO working, an
	// average packet is well above the 1420-byte MTU; at or below it, every
	// segment crosses user space on its own.
	links := []struct{ ns, dev, dir, name string }{
		{l.ns("gwa"), l.iface("a"), "tx", "a's TUN, to wireguard-go"},
		{l.ns("gwa"), "ul", "tx", "a's underlay veth, UDP out"},
		{l.ns("gwb"), l.iface("b"), "rx", "b's TUN, from wireguard-go"},
	}
	d := time.Duration(seconds) * time.Second
	loadavg, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("\nload average at start: %s; gateway environment: %q; underlay MTU %d\n", strings.TrimSpace(string(loadavg)), l.gatewayEnv, underlayMTU)
	fmt.Printf("%-32s %12s %s\n", "path", "Mbit/s", "bytes per packet: "+linkNames(links))
	medians := map[string]float64{}
	for _, p := range paths {
		var all []float64
		for run := 1; run <= runs; run++ {
			before := make([]linkStats, len(links))
			for i, k := range links {
				before[i] = readLinkStats(t, k.ns, k.dev)
			}
			drops, err := dropCounters(p.from, l.ns("gwb"))
			if err != nil {
				t.Fatal(err)
			}
			cpuBefore, err := takeCPUSnapshot(cpuPids(l))
			if err != nil {
				t.Fatal(err)
			}
			var prof *profiles
			if pprofDir != "" {
				if prof, err = startProfiles(l, pprofDir, fmt.Sprintf("%s-%d", p.slug, run), d); err != nil {
					t.Fatal(err)
				}
			}
			var relay *relays
			if p.slug == "relay" {
				if relay, err = startRelays(l); err != nil {
					t.Fatalf("%s: %v", p.name, err)
				}
			}
			mbps, moved, err := throughput(p.from, p.to, p.addr, p.dial, d)
			if relay != nil {
				err = errors.Join(err, relay.stop(moved))
			}
			if err != nil {
				t.Fatalf("%s: %v", p.name, err)
			}
			cpuAfter, cerr := takeCPUSnapshot(cpuPids(l))
			if prof != nil {
				cerr = errors.Join(cerr, prof.finish())
			}
			if cerr != nil {
				t.Fatal(cerr)
			}
			sizes := ""
			for i, k := range links {
				sizes += fmt.Sprintf(" %8.0f", readLinkStats(t, k.ns, k.dev).since(before[i]).bytesPerPacket(k.dir))
			}
			dropsAfter, err := dropCounters(p.from, l.ns("gwb"))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("%-32s %12.0f %s\n    %s\n    sender's TCP retransmitted segments %.0f, b's UDP receive errors %.0f (buffer full %.0f)\n",
				p.name, mbps, sizes, cpuUse(cpuBefore, cpuAfter, moved), dropsAfter[0]-drops[0], dropsAfter[1]-drops[1], dropsAfter[2]-drops[2])
			all = append(all, mbps)
		}
		if runs > 1 {
			fmt.Printf("%-32s %12.0f   median of %d runs: %s\n", p.name, median(all), runs, formatRuns(all))
		}
		medians[p.slug] = median(all)
	}
	// Target 6 against both references: raw veth (the kernel alone) and the
	// userspace relay (the same two crossings of user space, no cipher).
	for _, slug := range []string{"tunnel", "nat"} {
		fmt.Printf("%s: %.1f %% of raw veth, %.1f %% of the userspace relay\n", slug,
			100*medians[slug]/max(medians["raw"], 1e-9), 100*medians[slug]/max(medians["relay"], 1e-9))
	}
	if pprofDir != "" {
		fmt.Printf("profiles in %s: go tool pprof -top %s\n", pprofDir, filepath.Join(pprofDir, "tunnel-1-gwa-cpu.pprof"))
	}
}

// dropCounters are the TCP segments the sender's namespace retransmitted and
// the UDP receive errors (all, and for a full buffer) of b's gateway namespace.
func dropCounters(sender, gwb string) ([3]float64, error) {
	tcp, err := snmpCounters(sender)
	if err != nil {
		return [3]float64{}, err
	}
	udp, err := snmpCounters(gwb)
	if err != nil {
		return [3]float64{}, err
	}
	var out [3]float64
	for i, k := range []struct {
		c    map[string]float64
		name string
	}{{tcp, "Tcp:RetransSegs"}, {udp, "Udp:InErrors"}, {udp, "Udp:RcvbufErrors"}} {
		v, ok := k.c[k.name]
		if !ok { // a missing counter must not read as "no drops"
			return out, fmt.Errorf("/proc/net/snmp has no %s", k.name)
		}
		out[i] = v
	}
	return out, nil
}

func benchEnvInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: give a positive whole number (default %d)", name, v, def)
	}
	return n
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func formatRuns(v []float64) string {
	out := make([]string, len(v))
	for i, x := range v {
		out[i] = strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strings.Join(out, ", ")
}

func linkNames(links []struct{ ns, dev, dir, name string }) string {
	var out string
	for i, k := range links {
		if i > 0 {
			out += " | "
		}
		out += k.name
	}
	return out
}

// linkStats are an interface's counters as `ip -s -j link` reports them.
type linkStats struct {
	RxBytes, RxPackets, TxBytes, TxPackets float64
}

func (s linkStats) since(b linkStats) linkStats {
	return linkStats{s.RxBytes - b.RxBytes, s.RxPackets - b.RxPackets, s.TxBytes - b.TxBytes, s.TxPackets - b.TxPackets}
}

func (s linkStats) bytesPerPacket(dir string) float64 {
	if dir == "rx" {
		return s.RxBytes / max(s.RxPackets, 1)
	}
	return s.TxBytes / max(s.TxPackets, 1)
}

func readLinkStats(t *testing.T, ns, dev string) linkStats {
	t.Helper()
	out, err := exec.Command("ip", "-n", ns, "-s", "-j", "link", "show", "dev", dev).Output()
	if err != nil {
		t.Fatalf("ip -n %s -s -j link show dev %s: %v", ns, dev, err)
	}
	var links []struct {
		Stats struct {
			Rx struct {
				Bytes   float64 `json:"bytes"`
				Packets float64 `json:"packets"`
			} `json:"rx"`
			Tx struct {
				Bytes   float64 `json:"bytes"`
				Packets float64 `json:"packets"`
			} `json:"tx"`
		} `json:"stats64"`
	}
	if err := json.Unmarshal(out, &links); err != nil || len(links) != 1 {
		t.Fatalf("ip -s -j link show dev %s in %s: %v: %.200s", dev, ns, err, out)
	}
	st := links[0].Stats
	return linkStats{st.Rx.Bytes, st.Rx.Packets, st.Tx.Bytes, st.Tx.Packets}
}

func startLab(t *testing.T, l *lab, underlayMTU int, extraArgs ...string) {
	t.Helper()
	for _, step := range []func() error{l.buildGateway, l.create} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	for _, ns := range []string{l.ns("gwa"), l.ns("gwb")} {
		if err := run("ip", "-n", ns, "link", "set", "ul", "mtu", strconv.Itoa(underlayMTU)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"a", "b"} {
		if _, err := l.publicKey(c); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"a", "b"} {
		args, err := l.gatewayArgs(c)
		if err == nil {
			err = l.startGateway(c, l.ns("gw"+c), append(args, extraArgs...))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		s, err := statusOf(l.ns("gwa"), metricsAddr)
		if err == nil && s.Phase == "Connected" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("gateway a not Connected after 15s: %+v %v", s, err)
		}
		time.Sleep(100 * time.Millisecond) // polling interval, with a deadline above
	}
}

// throughput streams from namespace from to a sink listening on listen in
// namespace to, for d, and returns what the sink received, in Mbit/s and in
// bytes.
func throughput(from, to, listen, dial string, d time.Duration) (float64, int64, error) {
	ln, err := listenIn(to, listen)
	if err != nil {
		return 0, 0, err
	}
	defer ln.Close()
	received := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			received <- 0
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		received <- n
	}()
	c, err := dialIn(from, dial, 2*time.Second)
	if err != nil {
		return 0, 0, err
	}
	buf := make([]byte, relayBuffer)
	start := time.Now()
	_ = c.SetWriteDeadline(start.Add(d))
	for time.Since(start) < d {
		if _, err := c.Write(buf); err != nil {
			break // the write deadline ends the run
		}
	}
	c.Close()
	select {
	case n := <-received:
		return float64(n) * 8 / time.Since(start).Seconds() / 1e6, n, nil
	case <-time.After(10 * time.Second):
		return 0, 0, fmt.Errorf("sink at %s did not finish", listen)
	}
}
