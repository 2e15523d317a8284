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
	"errors"
	"fmt"
	"net"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/network/gateway"
)

// options are the flags as typed; parse turns them into a gateway.Config.
type options struct {
	clusterID, remoteClusterID        string
	listenPort, probePort, mtu        int
	privateKeyFile, peerPublicKey     string
	peerEndpoint                      string
	tunnelAddress, peerTunnelAddress  string
	localPodCIDR, remotePodCIDR       string
	remappedRemoteCIDR, externalCIDR  string
	reservedSubnets, remapPools       string
	interfaceName, metricsBindAddress string
	statusFile, pprofBindAddress      string
	implementation                    string
	probeInterval, connectTimeout     time.Duration
	printPublicKey                    bool
}

var ifaceName = regexp.MustCompile(`^[a-zA-Z0-9_.-]{1,15}$`)

// defaultInterface derives a Linux interface name (at most 15 bytes) from the
// remote cluster ID, so each peering of a host gets its own device and UAPI socket.
func defaultInterface(remoteClusterID string) string {
	clean := regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(remoteClusterID, "")
	return "spw-" + clean[:min(len(clean), 11)]
}

// parse validates every flag, naming the flag and the fix, and collects all
// problems so that one run shows them all. The private key is loaded later:
// parse does not touch the disk.
func (o options) parse() (gateway.Config, error) {
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	cfg := gateway.Config{ClusterID: o.clusterID, RemoteClusterID: o.remoteClusterID, ListenPort: o.listenPort,
		ProbePort: o.probePort, MTU: o.mtu, PeerEndpoint: o.peerEndpoint, ProbeInterval: o.probeInterval,
		ConnectTimeout: o.connectTimeout, Interface: o.interfaceName}
	o.checkIdentity(add)
	o.checkPorts(add)
	if err := checkPprofAddress(o.pprofBindAddress); err != nil {
		add(err)
	}
	var err error
	if cfg.Implementation, err = gateway.ParseImplementation(o.implementation); err != nil {
		add(err)
	}
	if cfg.PeerPublicKey, err = network.ParsePublicKey("--peer-public-key", o.peerPublicKey); err != nil {
		add(err)
	}
	if err := checkEndpoint(o.peerEndpoint); err != nil {
		add(err)
	}
	cfg.TunnelAddress, cfg.PeerTunnelAddress = o.parseTunnel(add)
	if cfg.Interface == "" && o.remoteClusterID != "" {
		cfg.Interface = defaultInterface(o.remoteClusterID)
	}
	if !ifaceName.MatchString(cfg.Interface) {
		add(fmt.Errorf("--interface-name %q is not a Linux interface name: use 1-15 letters, digits, '-', '_' or '.'", cfg.Interface))
	}
	cfg.LocalPodCIDR, cfg.Mapping = o.parseMapping(add)
	return cfg, errors.Join(errs...)
}

func (o options) checkIdentity(add func(error)) {
	if o.clusterID == "" {
		add(errors.New("--cluster-id is required: this cluster's ID"))
	}
	if o.remoteClusterID == "" {
		add(errors.New("--remote-cluster-id is required: the ID of the cluster at the other end of the tunnel"))
	}
	if o.clusterID != "" && o.clusterID == o.remoteClusterID {
		add(fmt.Errorf("--remote-cluster-id %q is this cluster's own --cluster-id: a gateway peers with another cluster", o.clusterID))
	}
	if o.privateKeyFile == "" {
		add(errors.New("--private-key-file is required: where this gateway keeps its private key (created on first run)"))
	}
}

func (o options) checkPorts(add func(error)) {
	for _, p := range []struct {
		flag  string
		value int
	}{{"--listen-port", o.listenPort}, {"--probe-port", o.probePort}} {
		if p.value < 1 || p.value > 65535 {
			add(fmt.Errorf("%s %d is not a UDP port: use 1-65535", p.flag, p.value))
		}
	}
	if o.mtu < 1280 || o.mtu > 9000 {
		add(fmt.Errorf("--mtu %d is out of range: use 1280-9000 (1420 suits a 1500-byte underlay)", o.mtu))
	}
	if o.probeInterval <= 0 || o.connectTimeout < o.probeInterval {
		add(fmt.Errorf("--probe-interval %s and --connect-timeout %s: the interval must be positive and the timeout at least one interval", o.probeInterval, o.connectTimeout))
	}
}

func checkEndpoint(endpoint string) error {
	const fix = "write host:port, e.g. 198.51.100.7:51820 or gw.example.org:51820"
	if endpoint == "" {
		return errors.New("--peer-endpoint is required: the peer gateway's reachable UDP address, " + fix)
	}
	host, port, err := net.SplitHostPort(endpoint)
	if err != nil || host == "" {
		return fmt.Errorf("--peer-endpoint %q is not host:port: %s", endpoint, fix)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("--peer-endpoint %q has no valid port: %s", endpoint, fix)
	}
	return nil
}

// parseTunnel checks the two ends of the point-to-point tunnel subnet.
func (o options) parseTunnel(add func(error)) (netip.Prefix, netip.Addr) {
	local, err := netip.ParsePrefix(o.tunnelAddress)
	if err != nil || !local.Addr().Is4() {
		add(fmt.Errorf("--tunnel-address %q is not an IPv4 address with prefix length: use e.g. 169.254.100.1/30", o.tunnelAddress))
		return netip.Prefix{}, netip.Addr{}
	}
	peer, err := netip.ParseAddr(strings.Split(o.peerTunnelAddress, "/")[0])
	switch {
	case err != nil:
		add(fmt.Errorf("--peer-tunnel-address %q is not an IP address: use the peer's --tunnel-address, e.g. 169.254.100.2", o.peerTunnelAddress))
	case !local.Contains(peer) || peer == local.Addr():
		add(fmt.Errorf("--peer-tunnel-address %s must be another address of --tunnel-address %s: give the peer the other end of the same subnet", peer, local))
	}
	return local, peer
}
