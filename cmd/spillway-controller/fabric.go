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
	"flag"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/network/fabric"
	"github.com/spillway-dev/spillway/network/gateway"
)

// fabricFlags configure the network fabric: one spillway-gateway per
// peering, supervised by this manager. Without --gateway-address there is no
// fabric and NetworkStatus stays None (networking left to another tool).
type fabricFlags struct {
	address, podCIDR, externalCIDR string
	reserved, pools, ports         string
	serviceCIDRs, nodeCIDRs        string
	widestPeerPodCIDR, mtu         int
	command, stateDir              string
	implementation                 string
	probeInterval, connectTimeout  time.Duration
	probePort                      int
}

func (f *fabricFlags) bind(fs *flag.FlagSet) {
	fs.StringVar(&f.address, "gateway-address", "", "host (IP or name) peers' gateways dial to reach this cluster's; empty runs no gateway")
	fs.StringVar(&f.podCIDR, "pod-cidr", "", "this cluster's pod CIDR (required with --gateway-address)")
	fs.StringVar(&f.externalCIDR, "external-cidr", "", "this cluster's external CIDR; remote pods are never remapped into it")
	fs.StringVar(&f.reserved, "reserved-subnets", "", "comma-separated local subnets remaps must avoid (service CIDR, node network)")
	// Node CIDRs are a flag, not discovered: a Node lists addresses, not the
	// subnet they sit in, and the subnet's router, load balancers and API
	// VIPs are no Node's address.
	fs.StringVar(&f.serviceCIDRs, "service-cidr", "10.96.0.0/12", "comma-separated service CIDRs of this cluster (default: kubeadm's); a peer whose pod CIDR overlaps one is refused, and remaps never use them")
	fs.StringVar(&f.nodeCIDRs, "node-cidrs", "", "comma-separated subnets of this cluster's nodes; a peer whose pod CIDR overlaps one is refused, and remaps never use them")
	fs.IntVar(&f.widestPeerPodCIDR, "widest-peer-pod-cidr", fabric.DefaultWidestPeerPodCIDR, "prefix length of the widest pod CIDR a peer may publish (12: /12); a wider one is refused")
	fs.StringVar(&f.pools, "remap-pools", "", "comma-separated CIDRs remaps of overlapping pod CIDRs are taken from (default "+network.DefaultRemapPools[0].String()+")")
	fs.StringVar(&f.ports, "gateway-ports", "51820-51899", "UDP ports handed to the peerings' gateways, first-last")
	fs.StringVar(&f.command, "gateway-command", "", "command running spillway-gateway, space-separated (a wrapper such as 'ip netns exec gw' may come first); default: spillway-gateway next to this binary")
	fs.StringVar(&f.stateDir, "gateway-state-dir", "/var/lib/spillway/gateways", "where each gateway's key file and status file are kept")
	fs.StringVar(&f.implementation, "gateway-implementation", "auto", "WireGuard implementation of the gateways: auto, kernel or userspace")
	// The default suits a 1500-byte underlay anywhere; a larger one pays
	// off only where every hop between the gateways carries it (issue 17,
	// target 6: the tunnel's cost is per packet as much as per byte).
	fs.IntVar(&f.mtu, "gateway-mtu", 1420, "MTU of the gateways' tunnel interfaces: the smallest MTU on the path between the clusters' gateways less 80 (1420 for 1500; 8920 for 9000 only where every hop carries jumbo frames)")
	fs.DurationVar(&f.probeInterval, "gateway-probe-interval", time.Second, "how often each gateway probes its peer through the tunnel")
	fs.DurationVar(&f.connectTimeout, "gateway-connect-timeout", 30*time.Second, "how long a gateway waits for its peer before reporting Error")
	fs.IntVar(&f.probePort, "gateway-probe-port", 51819, "UDP port of the gateways' latency probe on the tunnel addresses; outside --gateway-ports")
}

// config turns the flags into a fabric.Config; enabled is false without
// --gateway-address. Every problem names its flag.
func (f fabricFlags) config(clusterID, namespace string, log *slog.Logger) (cfg fabric.Config, enabled bool, err error) {
	if f.address == "" {
		return cfg, false, nil
	}
	cfg = fabric.Config{ClusterID: clusterID, GatewayAddress: f.address, Namespace: namespace, StateDir: f.stateDir,
		Implementation: f.implementation, MTU: f.mtu, ProbeInterval: f.probeInterval, ConnectTimeout: f.connectTimeout, ProbePort: f.probePort, Log: log}
	if cfg.PodCIDR, err = parseCIDR("--pod-cidr", f.podCIDR, true); err != nil {
		return cfg, true, err
	}
	if cfg.ExternalCIDR, err = parseCIDR("--external-cidr", f.externalCIDR, false); err != nil {
		return cfg, true, err
	}
	if cfg.Reserved, err = parseCIDRList("--reserved-subnets", f.reserved); err != nil {
		return cfg, true, err
	}
	if cfg.Pools, err = parseCIDRList("--remap-pools", f.pools); err != nil {
		return cfg, true, err
	}
	if cfg.ServiceCIDRs, err = parseCIDRList("--service-cidr", f.serviceCIDRs); err != nil {
		return cfg, true, err
	}
	if cfg.NodeCIDRs, err = parseCIDRList("--node-cidrs", f.nodeCIDRs); err != nil {
		return cfg, true, err
	}
	cfg.WidestPeerPodCIDR = f.widestPeerPodCIDR
	if f.mtu < 1280 || f.mtu > 9000 {
		return cfg, true, fmt.Errorf("--gateway-mtu %d is out of range: use 1280-9000, the smallest MTU between the clusters' gateways less 80 (1420 for a 1500-byte path)", f.mtu)
	}
	if cfg.FirstPort, cfg.LastPort, err = parsePortRange(f.ports); err != nil {
		return cfg, true, err
	}
	if f.probePort >= cfg.FirstPort && f.probePort <= cfg.LastPort {
		return cfg, true, fmt.Errorf("--gateway-probe-port %d is inside --gateway-ports %s: a gateway would find its port taken; pick a port outside the range", f.probePort, f.ports)
	}
	cfg.Command = strings.Fields(f.command)
	if len(cfg.Command) == 0 {
		cfg.Command = []string{defaultGatewayBinary()}
	}
	return cfg, true, nil
}

func parseCIDR(flagName, s string, required bool) (netip.Prefix, error) {
	if s == "" {
		if required {
			return netip.Prefix{}, fmt.Errorf("%s is required with --gateway-address: the cluster's pod CIDR, e.g. 10.244.0.0/16", flagName)
		}
		return netip.Prefix{}, nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil || !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("%s %q is not an IPv4 CIDR: write e.g. 10.244.0.0/16", flagName, s)
	}
	return p.Masked(), nil
}

func parseCIDRList(flagName, s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		p, err := parseCIDR(flagName, part, false)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func parsePortRange(s string) (first, last int, err error) {
	a, b, ok := strings.Cut(s, "-")
	first, errA := strconv.Atoi(strings.TrimSpace(a))
	last, errB := strconv.Atoi(strings.TrimSpace(b))
	if !ok || errA != nil || errB != nil || first < 1 || last > 65535 || first > last {
		return 0, 0, fmt.Errorf("--gateway-ports %q is not a port range: write first-last, e.g. 51820-51899", s)
	}
	return first, last, nil
}

// defaultGatewayBinary is spillway-gateway installed next to this manager
// (the image ships both), else whatever PATH finds.
func defaultGatewayBinary() string {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "spillway-gateway")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "spillway-gateway"
}

// fabricSlot holds the current generation's fabric for the gateway metrics,
// which are registered once per process.
type fabricSlot struct{ fab atomic.Pointer[fabric.Fabric] }

func (s *fabricSlot) set(f *fabric.Fabric) { s.fab.Store(f) }

// statuses are the current fabric's gateways, none without a fabric.
func (s *fabricSlot) statuses() []gateway.Status {
	if f := s.fab.Load(); f != nil {
		return f.Statuses()
	}
	return nil
}
