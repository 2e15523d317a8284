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

// Package gateway runs one end of a peering's WireGuard tunnel on Linux: the
// device (kernel, or embedded wireguard-go when the module is missing), the
// routes and NAT that remap an overlapping remote pod CIDR, and a UDP probe
// through the tunnel that drives the peering's status and metrics.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"golang.zx2c4.com/wireguard/wgctrl"
	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	"github.com/spillway-dev/spillway/network"
)

// Config is a validated gateway configuration; cmd/spillway-gateway builds it from flags.
type Config struct {
	ClusterID, RemoteClusterID string
	Interface                  string
	Implementation             Implementation
	MTU                        int
	ListenPort                 int
	PrivateKey                 wgtypes.Key
	PeerPublicKey              wgtypes.Key
	// PeerEndpoint is host:port, resolved again until it works.
	PeerEndpoint      string
	TunnelAddress     netip.Prefix
	PeerTunnelAddress netip.Addr
	LocalPodCIDR      netip.Prefix
	// Mapping is where the remote pod CIDR appears to local pods.
	Mapping        network.Mapping
	ProbePort      int
	ProbeInterval  time.Duration
	ConnectTimeout time.Duration
	Log            *slog.Logger
}

// Gateway is one end of a peering's tunnel. Run it once.
type Gateway struct {
	cfg     Config
	routing routing
	nat     *nat
	dev     *wgDevice
	wg      *wgctrl.Client

	mu     sync.Mutex
	status Status
	obs    observation
}

// New returns a gateway for cfg; nothing is touched until Run.
func New(cfg Config) *Gateway {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	g := &Gateway{cfg: cfg, routing: newRouting(cfg.Interface)}
	g.status = Status{
		ClusterID: cfg.ClusterID, RemoteClusterID: cfg.RemoteClusterID, Interface: cfg.Interface,
		PublicKey: cfg.PrivateKey.PublicKey().String(), PeerEndpoint: cfg.PeerEndpoint,
		RemotePodCIDR: cfg.Mapping.Remote.String(), RemappedRemoteCIDR: cfg.Mapping.Local.String(),
		Phase: PhaseConnecting, Reason: "starting",
	}
	return g
}

// Status returns the latest status; safe to call from any goroutine.
func (g *Gateway) Status() Status {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.status
}

// Run sets the tunnel up, keeps probing the peer until ctx ends, then removes
// what it installed. Setup errors are returned at once: they are
// configuration or host problems that retrying will not fix; an unreachable
// peer is not an error but a status.
func (g *Gateway) Run(ctx context.Context) (err error) {
	defer func() { err = errors.Join(err, g.tearDown()) }()
	if err := g.setUp(); err != nil {
		g.setError(err)
		return err
	}
	resp, err := listenResponder(netip.AddrPortFrom(g.cfg.TunnelAddress.Addr(), uint16(g.cfg.ProbePort)))
	if err != nil {
		return err
	}
	defer resp.Close()
	probe, err := dialProber(g.cfg.TunnelAddress.Addr(), netip.AddrPortFrom(g.cfg.PeerTunnelAddress, uint16(g.cfg.ProbePort)))
	if err != nil {
		return err
	}
	defer probe.Close()
	g.loop(ctx, probe)
	// with the final log line, this one times the teardown that follows
	g.cfg.Log.Info("stopping: removing the tunnel, routes and NAT")
	return nil
}

func (g *Gateway) setUp() error {
	dev, err := openDevice(g.cfg.Interface, g.cfg.Implementation, g.cfg.MTU, g.cfg.Log)
	if err != nil {
		return err
	}
	g.dev = dev
	g.mu.Lock()
	g.status.Implementation, g.status.ImplementationReason = dev.implementation, dev.fallbackReason
	g.mu.Unlock()
	if g.wg, err = wgctrl.New(); err != nil {
		return fmt.Errorf("opening wgctrl: %w", err)
	}
	if err := g.wg.ConfigureDevice(g.cfg.Interface, wgtypes.Config{PrivateKey: &g.cfg.PrivateKey, ListenPort: &g.cfg.ListenPort}); err != nil {
		return fmt.Errorf("configuring %s with wgctrl (is --listen-port %d free?): %w", g.cfg.Interface, g.cfg.ListenPort, err)
	}
	if err := g.routing.setUp(g.cfg.TunnelAddress, g.cfg.Mapping); err != nil {
		return err
	}
	if !g.cfg.Mapping.Remapped() {
		return nil
	}
	if g.nat, err = newNAT(g.cfg.Interface); err != nil {
		return err
	}
	return g.nat.setUp(g.routing, g.cfg.Mapping)
}

// tearDown undoes setUp in reverse; a SIGKILLed gateway skips it and its
// successor's setUp replaces the leftovers instead.
func (g *Gateway) tearDown() error {
	var errs []error
	if g.nat != nil {
		errs = append(errs, g.nat.tearDown())
	}
	errs = append(errs, g.routing.tearDown())
	if g.wg != nil {
		errs = append(errs, g.wg.Close())
	}
	if g.dev != nil {
		errs = append(errs, g.dev.close())
	}
	return errors.Join(errs...)
}

func (g *Gateway) setError(err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.status.Phase, g.status.Reason = PhaseError, err.Error()
}
