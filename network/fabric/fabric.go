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

package fabric

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/network/gateway"
)

// Config is the manager's view of the fabric, from its flags.
type Config struct {
	ClusterID    string
	PodCIDR      netip.Prefix
	ExternalCIDR netip.Prefix
	Reserved     []netip.Prefix
	Pools        []netip.Prefix
	// ServiceCIDRs and NodeCIDRs are local ranges a peer's pod CIDR may not
	// overlap (the peering is refused) and remaps never use.
	ServiceCIDRs, NodeCIDRs []netip.Prefix
	// WidestPeerPodCIDR is the smallest prefix length a peer's pod CIDR may
	// have; DefaultWidestPeerPodCIDR when zero.
	WidestPeerPodCIDR int
	// GatewayAddress is the host peers dial to reach this cluster's gateways.
	GatewayAddress string
	// FirstPort and LastPort bound the UDP ports handed to peerings' gateways.
	FirstPort, LastPort int
	// Namespace holds the key Secrets (the manager's own namespace).
	Namespace string
	// StateDir holds each gateway's key file and status file.
	StateDir string
	// Command runs spillway-gateway, with any wrapper before it (the lab
	// puts "ip netns exec <gateway namespace>" there).
	Command        []string
	Implementation string
	// MTU is the tunnel interface's MTU; zero leaves the gateway's default
	// (1420, which a 1500-byte underlay carries).
	MTU            int
	ProbePort      int
	ProbeInterval  time.Duration
	ConnectTimeout time.Duration
	// Registry receives the remaps, for the reflectors; a private one when nil.
	Registry *network.Registry
	Log      *slog.Logger
}

// Fabric runs the gateways of this cluster's peerings. Safe for concurrent use.
type Fabric struct {
	cfg    Config
	client client.Client
	ipam   *network.IPAM
	guard  peerGuard
	sup    *Supervisor
	// mu serializes key Secret creation, so two peerings never get one port.
	mu sync.Mutex
}

// New checks cfg and returns a fabric that keeps key Secrets with c.
func New(cfg Config, c client.Client) (*Fabric, error) {
	if cfg.Registry == nil {
		cfg.Registry = network.NewRegistry()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	var errs []error
	if cfg.GatewayAddress == "" {
		errs = append(errs, errors.New("--gateway-address is required: the host peers' gateways dial to reach this cluster's"))
	}
	if cfg.FirstPort < 1 || cfg.LastPort > 65535 || cfg.FirstPort > cfg.LastPort {
		errs = append(errs, fmt.Errorf("--gateway-ports %d-%d is not a UDP port range: use first-last, e.g. 51820-51899", cfg.FirstPort, cfg.LastPort))
	}
	if len(cfg.Command) == 0 {
		errs = append(errs, errors.New("--gateway-command is empty: give the spillway-gateway binary"))
	}
	if cfg.WidestPeerPodCIDR < 0 || cfg.WidestPeerPodCIDR > 32 {
		errs = append(errs, fmt.Errorf("--widest-peer-pod-cidr %d is not a prefix length: use 1-32, e.g. 12 for /12", cfg.WidestPeerPodCIDR))
	}
	errs = append(errs, checkLocalRanges(cfg)...)
	// Remaps must never land on the service or node ranges either.
	reserved := append(append(append([]netip.Prefix{}, cfg.Reserved...), cfg.ServiceCIDRs...), cfg.NodeCIDRs...)
	ipam, err := network.NewIPAM(network.IPAMConfig{LocalPodCIDR: cfg.PodCIDR, ExternalCIDR: cfg.ExternalCIDR,
		Reserved: reserved, Pools: cfg.Pools}, cfg.Registry)
	if err != nil {
		errs = append(errs, fmt.Errorf("--pod-cidr, --external-cidr, --remap-pools: %w", err))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Fabric{cfg: cfg, client: c, ipam: ipam, guard: newPeerGuard(cfg), sup: NewSupervisor(cfg.Log)}, nil
}

// Peer is one peering as the calling controller knows it.
type Peer struct {
	ClusterID string
	Role      Role
}

// Published is the peer's parameters ConfigMap as the caller found it.
type Published struct {
	// Source names the ConfigMap in messages.
	Source string
	Found  bool
	Data   map[string]string
}

// Sync is one reconcile of a peering's fabric: it returns the parameters to
// publish for the peer and the peering's network state. Only local API
// errors are returned; a bad or missing peer is a State.
func (f *Fabric) Sync(ctx context.Context, peer Peer, remote Published) (publish map[string]string, st State, err error) {
	key, err := f.ensureKey(ctx, peer.ClusterID)
	if err != nil {
		return nil, State{}, err
	}
	local := Params{ClusterID: f.cfg.ClusterID, PublicKey: key.private.PublicKey(), PodCIDR: f.cfg.PodCIDR,
		ExternalCIDR: f.cfg.ExternalCIDR, Endpoint: net.JoinHostPort(f.cfg.GatewayAddress, strconv.Itoa(key.port))}
	if !remote.Found {
		return local.Data(), pending(remote.Source), nil
	}
	rp, perr := ParseParams(remote.Source, remote.Data)
	if perr == nil && rp.ClusterID != peer.ClusterID {
		perr = fmt.Errorf("%s: key %q is %q, but this peering is with cluster %q: the ConfigMap belongs to another cluster", remote.Source, "clusterID", rp.ClusterID, peer.ClusterID)
	}
	if perr == nil {
		perr = f.guard.check(remote.Source, rp)
	}
	if perr != nil {
		// The running gateway, if any, keeps its last good configuration,
		// and the peer keeps reading the remap it works with.
		if m, ok := f.cfg.Registry.Get(peer.ClusterID); ok {
			local.RemappedPeerPodCIDR = m.Local
		}
		return local.Data(), State{Phase: PhaseError, Reason: ReasonInvalidPeerParameters, Message: perr.Error()}, nil
	}
	m, err := f.ipam.AllocatePreferring(peer.ClusterID, rp.PodCIDR, key.remap)
	if err != nil {
		return local.Data(), State{Phase: PhaseError, Reason: ReasonRemapFailed, Message: err.Error()}, nil
	}
	if err := f.recordRemap(ctx, key, m.Local); err != nil {
		return nil, State{}, err
	}
	local.RemappedPeerPodCIDR = m.Local
	if rp.RemappedPeerPodCIDR.IsValid() {
		f.cfg.Registry.SetPeerView(peer.ClusterID, f.cfg.PodCIDR, rp.RemappedPeerPodCIDR)
	}
	iface := InterfaceName(f.cfg.ClusterID, peer.ClusterID)
	plan := GatewayPlan{Role: peer.Role, Interface: iface, ListenPort: key.port,
		PrivateKeyFile: f.path(iface, ".key"), StatusFile: f.path(iface, ".status.json"), Local: local, Remote: rp, Mapping: m,
		Implementation: f.cfg.Implementation, MTU: f.cfg.MTU, ProbePort: f.cfg.ProbePort, ProbeInterval: f.cfg.ProbeInterval, ConnectTimeout: f.cfg.ConnectTimeout}
	if err := writeKeyFile(plan.PrivateKeyFile, key.private); err != nil {
		return nil, State{}, fmt.Errorf("writing the gateway key file under --gateway-state-dir: %w", err)
	}
	f.sup.Ensure(iface, append(append([]string{}, f.cfg.Command...), plan.Args()...))
	return local.Data(), f.observe(iface), nil
}

// Release stops the peering's gateway, frees its remap and deletes its key
// Secret: called when the peering is removed from git.
func (f *Fabric) Release(ctx context.Context, peerClusterID string) error {
	iface := InterfaceName(f.cfg.ClusterID, peerClusterID)
	f.sup.Stop(iface)
	f.ipam.Release(peerClusterID)
	_ = os.Remove(f.path(iface, ".key"))
	_ = os.Remove(f.path(iface, ".status.json"))
	key := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: f.cfg.Namespace, Name: f.keySecretName(peerClusterID)}}
	if err := f.client.Delete(ctx, key); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting gateway key Secret %s/%s: %w", key.Namespace, key.Name, err)
	}
	return nil
}

// Start blocks until ctx ends, then stops every gateway: the manager adds
// the fabric as a Runnable so its gateways end with it.
func (f *Fabric) Start(ctx context.Context) error {
	<-ctx.Done()
	f.sup.StopAll()
	return nil
}

// Statuses are the gateways' last reported statuses, for the metrics.
func (f *Fabric) Statuses() []gateway.Status {
	var out []gateway.Status
	for _, name := range f.sup.Names() {
		if st, err := readStatusFile(f.path(name, ".status.json")); err == nil {
			out = append(out, st)
		}
	}
	return out
}

func (f *Fabric) path(iface, suffix string) string {
	return filepath.Join(f.cfg.StateDir, iface+suffix)
}

func readStatusFile(path string) (gateway.Status, error) {
	st, _, err := readStatusFileAt(path)
	return st, err
}

// readStatusFileAt returns the status and when the gateway wrote it.
func readStatusFileAt(path string) (gateway.Status, time.Time, error) {
	var st gateway.Status
	fi, err := os.Stat(path)
	if err != nil {
		return st, time.Time{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return st, time.Time{}, err
	}
	return st, fi.ModTime(), json.Unmarshal(data, &st)
}

// observe reads what the supervisor and the gateway's status file say.
func (f *Fabric) observe(iface string) State {
	proc, ok := f.sup.State(iface)
	st, written, err := readStatusFileAt(f.path(iface, ".status.json"))
	return stateOf(gatewayObservation{supervised: ok, process: proc, status: st, statusErr: err, written: written}, time.Now())
}
