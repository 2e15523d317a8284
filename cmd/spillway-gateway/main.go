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

// Command spillway-gateway runs one end of a peering's WireGuard tunnel:
// kernel WireGuard when the module exists, embedded wireguard-go otherwise,
// with NAT that remaps an overlapping remote pod CIDR, a UDP latency probe,
// /status and Prometheus metrics.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/network/gateway"
)

func bindFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.clusterID, "cluster-id", "", "this cluster's ID")
	fs.StringVar(&o.remoteClusterID, "remote-cluster-id", "", "the peer cluster's ID")
	fs.IntVar(&o.listenPort, "listen-port", 51820, "UDP port WireGuard listens on")
	fs.StringVar(&o.privateKeyFile, "private-key-file", "", "file (or mounted Secret key) holding this gateway's private key; created 0600 when missing")
	fs.StringVar(&o.peerPublicKey, "peer-public-key", "", "the peer gateway's public key (its --print-public-key)")
	fs.StringVar(&o.peerEndpoint, "peer-endpoint", "", "the peer gateway's UDP address, host:port")
	fs.StringVar(&o.tunnelAddress, "tunnel-address", "", "this end's tunnel address with prefix, e.g. 169.254.100.1/30")
	fs.StringVar(&o.peerTunnelAddress, "peer-tunnel-address", "", "the peer's tunnel address, e.g. 169.254.100.2")
	fs.StringVar(&o.localPodCIDR, "local-pod-cidr", "", "this cluster's pod CIDR")
	fs.StringVar(&o.remotePodCIDR, "remote-pod-cidr", "", "the peer cluster's pod CIDR, as the peer uses it")
	fs.StringVar(&o.remappedRemoteCIDR, "remapped-remote-cidr", "", "where local pods reach the remote pod CIDR; computed when empty")
	fs.StringVar(&o.externalCIDR, "external-cidr", "", "this cluster's external CIDR, never used for remaps")
	fs.StringVar(&o.reservedSubnets, "reserved-subnets", "", "comma-separated local subnets remaps must avoid (service CIDR, other peerings' remaps)")
	fs.StringVar(&o.remapPools, "remap-pools", "", "comma-separated CIDRs remaps are taken from (default "+network.DefaultRemapPools[0].String()+")")
	fs.StringVar(&o.interfaceName, "interface-name", "", "WireGuard interface name (default spw-<remote cluster id>)")
	fs.StringVar(&o.metricsBindAddress, "metrics-bind-address", "127.0.0.1:9100", "address of /metrics and /status; 0 disables")
	fs.StringVar(&o.implementation, "wireguard-implementation", string(gateway.ImplementationAuto), "auto, kernel or userspace")
	fs.IntVar(&o.probePort, "probe-port", 51821, "UDP port of the latency probe on the tunnel addresses (same on both gateways)")
	fs.IntVar(&o.mtu, "mtu", 1420, "MTU of the tunnel interface")
	fs.DurationVar(&o.probeInterval, "probe-interval", time.Second, "how often the peer is probed through the tunnel")
	fs.DurationVar(&o.connectTimeout, "connect-timeout", 30*time.Second, "how long without a probe reply before Connecting turns into Error")
	fs.StringVar(&o.statusFile, "status-file", "", "file the status (same JSON as /status) is written to every second; empty disables")
	fs.StringVar(&o.pprofBindAddress, "pprof-bind-address", "", "serve Go's pprof profiles (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060; off when empty or 0")
	fs.BoolVar(&o.printPublicKey, "print-public-key", false, "print the public key of --private-key-file (creating it if missing) and exit")
}

func main() {
	var o options
	bindFlags(flag.CommandLine, &o)
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if o.printPublicKey {
		os.Exit(printPublicKey(o.privateKeyFile))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg, err := o.config(log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spillway-gateway: invalid configuration:\n"+err.Error())
		if serr := serveInvalid(ctx, o, err); serr != nil {
			fmt.Fprintln(os.Stderr, "spillway-gateway:", serr)
		}
		stop()
		os.Exit(2)
	}
	cfg.Log = log.With("remoteClusterID", cfg.RemoteClusterID)
	if err := run(ctx, cfg, o); err != nil {
		log.Error("gateway stopped", "error", err)
		stop()
		os.Exit(1)
	}
}

// config parses the flags and loads the private key: everything that can be
// wrong before the gateway touches the network.
func (o options) config(log *slog.Logger) (gateway.Config, error) {
	cfg, err := o.parse()
	if err != nil {
		return cfg, err
	}
	if cfg.PrivateKey, err = loadKey(o.privateKeyFile, log); err != nil {
		return cfg, err
	}
	if cfg.PrivateKey.PublicKey() == cfg.PeerPublicKey {
		return cfg, errors.New("--peer-public-key is this gateway's own public key: give the peer's (its --print-public-key)")
	}
	return cfg, nil
}

func printPublicKey(path string) int {
	key, _, err := network.LoadOrCreatePrivateKey(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "spillway-gateway:", err)
		return 2
	}
	fmt.Println(key.PublicKey().String())
	return 0
}

func loadKey(path string, log *slog.Logger) (wgtypes.Key, error) {
	key, created, err := network.LoadOrCreatePrivateKey(path)
	if created {
		log.Info("generated a private key; give the peer this gateway's public key", "file", path, "publicKey", key.PublicKey().String())
	}
	return key, err
}

func run(ctx context.Context, cfg gateway.Config, o options) error {
	gw := gateway.New(cfg)
	statusCtx, stopStatus := context.WithCancel(ctx)
	written := keepStatusFile(statusCtx, o.statusFile, gw.Status)
	defer func() { stopStatus(); <-written }()
	if metricsEnabled(o.metricsBindAddress) {
		srv, err := serveMetrics(o.metricsBindAddress, gw.Status)
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	if pprofEnabled(o.pprofBindAddress) {
		srv, err := servePprof(o.pprofBindAddress, cfg.Log)
		if err != nil {
			return err
		}
		defer srv.Close()
	}
	cfg.Log.Info("starting gateway", "interface", cfg.Interface, "remotePodCIDR", cfg.Mapping.Remote,
		"remappedRemoteCIDR", cfg.Mapping.Local, "publicKey", cfg.PrivateKey.PublicKey().String())
	if err := gw.Run(ctx); err != nil {
		return err
	}
	cfg.Log.Info("gateway stopped; tunnel, routes and NAT removed")
	return nil
}

// serveMetrics serves /metrics and /status; it listens before the tunnel is
// up so that a failing setup is visible, not just absent.
func serveMetrics(addr string, status func() gateway.Status) (*http.Server, error) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(gateway.NewCollector(status))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(status())
	})
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-bind-address %s: %w", addr, err)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			slog.Error("metrics server stopped", "error", err)
		}
	}()
	return srv, nil
}
