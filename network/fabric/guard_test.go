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
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPeerGuardRefusesWhatWouldTakeOverLocalAddresses(t *testing.T) {
	g := newPeerGuard(Config{PodCIDR: mustPrefix("10.244.0.0/16"), GatewayAddress: "198.18.0.1",
		ServiceCIDRs: []netip.Prefix{mustPrefix("10.96.0.0/12")}, NodeCIDRs: []netip.Prefix{mustPrefix("192.168.10.0/24")}})
	for _, tc := range []struct {
		name, podCIDR, remap string
		want                 []string // every one must appear; none means accepted
	}{
		{"the local pod CIDR itself: remapped, not refused", "10.244.0.0/16", "", nil},
		{"a disjoint /16", "10.70.0.0/16", "10.208.0.0/16", nil},
		{"exactly the limit", "10.0.0.0/12", "", nil},
		{"half the internet", "128.0.0.0/1", "", []string{`key "podCIDR" is 128.0.0.0/1, wider than /12`, "--widest-peer-pod-cidr=12"}},
		{"the node subnet", "192.168.10.0/24", "", []string{`key "podCIDR" is 192.168.10.0/24, which overlaps this cluster's node CIDR 192.168.10.0/24 (--node-cidrs)`}},
		{"inside the service CIDR", "10.100.0.0/16", "", []string{"overlaps this cluster's service CIDR 10.96.0.0/12 (--service-cidr)"}},
		{"around the gateway address", "198.18.0.0/16", "", []string{"overlaps this cluster's gateway address 198.18.0.1 (--gateway-address)"}},
		{"loopback", "127.0.0.0/16", "", []string{"loopback range 127.0.0.0/8"}},
		{"the tunnel space", "169.254.64.0/24", "", []string{"link-local range 169.254.0.0/16"}},
		{"everything at once", "0.0.0.0/0", "", []string{"wider than /12", "service CIDR", "node CIDR", "gateway address", "loopback", "multicast"}},
		{"a remap of another size", "10.70.0.0/16", "10.208.0.0/24", []string{`key "remappedPeerPodCIDR" is 10.208.0.0/24, but this cluster's pod CIDR is a /16`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Params{PodCIDR: mustPrefix(tc.podCIDR)}
			if tc.remap != "" {
				p.RemappedPeerPodCIDR = mustPrefix(tc.remap)
			}
			err := g.check("ConfigMap t/liqo-network-provider on milan", p)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted; want an error containing %q", tc.want)
			}
			for _, w := range append(tc.want, "ConfigMap t/liqo-network-provider on milan") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestTheWidestPeerPodCIDRIsConfigurable(t *testing.T) {
	g := newPeerGuard(Config{PodCIDR: mustPrefix("10.244.0.0/16"), WidestPeerPodCIDR: 20})
	if err := g.check("cm", Params{PodCIDR: mustPrefix("10.70.0.0/16")}); err == nil || !strings.Contains(err.Error(), "wider than /20") {
		t.Fatalf("a /16 with --widest-peer-pod-cidr=20: %v; want it refused naming /20", err)
	}
	if err := g.check("cm", Params{PodCIDR: mustPrefix("10.70.0.0/20")}); err != nil {
		t.Fatalf("a /20 with --widest-peer-pod-cidr=20: %v", err)
	}
}

func TestNewRefusesAPodCIDRInsideTheServiceOrNodeRanges(t *testing.T) {
	_, err := New(Config{ClusterID: "rome", PodCIDR: mustPrefix("10.96.0.0/16"), ServiceCIDRs: []netip.Prefix{mustPrefix("10.96.0.0/12")},
		GatewayAddress: "gw", FirstPort: 1, LastPort: 2, Command: []string{"x"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "--pod-cidr 10.96.0.0/16 overlaps this cluster's service CIDR 10.96.0.0/12 (--service-cidr)") {
		t.Fatalf("New: %v", err)
	}
	_, err = New(Config{ClusterID: "rome", PodCIDR: mustPrefix("10.244.0.0/16"), WidestPeerPodCIDR: 33,
		GatewayAddress: "gw", FirstPort: 1, LastPort: 2, Command: []string{"x"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "--widest-peer-pod-cidr 33") {
		t.Fatalf("New: %v", err)
	}
}

func TestRemapsAvoidTheServiceAndNodeRanges(t *testing.T) {
	// The pool's first /16s are the service and node ranges: the remap of
	// an overlapping peer must skip both.
	f, _, _ := newTestFabricWith(t, func(cfg *Config) {
		cfg.Pools = []netip.Prefix{mustPrefix("10.96.0.0/14")}
		cfg.ServiceCIDRs = []netip.Prefix{mustPrefix("10.96.0.0/16")}
		cfg.NodeCIDRs = []netip.Prefix{mustPrefix("10.97.0.0/16")}
	})
	pub, _, err := f.Sync(context.Background(), Peer{ClusterID: "milan"}, published(t, "milan"))
	if err != nil {
		t.Fatal(err)
	}
	if pub["remappedPeerPodCIDR"] != "10.98.0.0/16" {
		t.Fatalf("remap = %q, want 10.98.0.0/16, the first /16 of the pool clear of the service and node ranges", pub["remappedPeerPodCIDR"])
	}
}

// A peer that starts publishing a hostile pod CIDR is refused; the working
// gateway and remap stay, and the peering recovers when the value is fixed.
func TestARefusedPeerCIDRKeepsTheWorkingTunnelAndRecovers(t *testing.T) {
	f, _, _ := newTestFabricWith(t, func(cfg *Config) { cfg.NodeCIDRs = []netip.Prefix{mustPrefix("192.168.10.0/24")} })
	ctx := context.Background()
	pidFile := filepath.Join(f.cfg.StateDir, InterfaceName("rome", "milan")+".status.json.pid")
	var good map[string]string
	eventually(t, "the gateway to connect", func() bool {
		var st State
		good, st, _ = f.Sync(ctx, Peer{ClusterID: "milan"}, published(t, "milan"))
		return st.Phase == PhaseConnected && fileHas(pidFile)
	})
	pid, _ := os.ReadFile(pidFile)
	for _, bad := range []string{"128.0.0.0/1", "192.168.0.0/16"} {
		p := published(t, "milan")
		p.Data["podCIDR"] = bad
		pub, st, err := f.Sync(ctx, Peer{ClusterID: "milan"}, p)
		if err != nil || st.Phase != PhaseError || st.Reason != ReasonInvalidPeerParameters || !strings.Contains(st.Message, `key "podCIDR" is `+bad) {
			t.Fatalf("podCIDR %s: %+v, %v; want %s naming the key and the CIDR", bad, st, err, ReasonInvalidPeerParameters)
		}
		if pub["remappedPeerPodCIDR"] != good["remappedPeerPodCIDR"] {
			t.Fatalf("podCIDR %s: we now publish remap %q instead of the working %q", bad, pub["remappedPeerPodCIDR"], good["remappedPeerPodCIDR"])
		}
		if m, _ := f.cfg.Registry.Get("milan"); m.Remote.String() != "10.244.0.0/16" {
			t.Fatalf("podCIDR %s reached the registry: %+v", bad, m)
		}
	}
	if now, _ := os.ReadFile(pidFile); string(now) != string(pid) {
		t.Fatalf("the gateway was restarted (pid %s, then %s): a refused value must not touch it", pid, now)
	}
	_, st, err := f.Sync(ctx, Peer{ClusterID: "milan"}, published(t, "milan"))
	if err != nil || st.Phase != PhaseConnected {
		t.Fatalf("fixed: %+v, %v; want Connected again", st, err)
	}
}

func fileHas(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && len(strings.TrimSpace(string(b))) > 0
}
