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
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/spillway-dev/spillway/network"
)

// fakeGateway stands in for spillway-gateway: it writes a Connected status
// to its --status-file every 100 ms and records its pid, so the test checks
// the supervisor and the status plumbing without WireGuard (the network e2e
// suite runs the real one).
const fakeGateway = `
for a; do case "$a" in --status-file=*) f="${a#--status-file=}";; --remote-cluster-id=*) r="${a#--remote-cluster-id=}";; esac; done
echo $$ > "$f.pid"
while :; do
  printf '{"remoteClusterID":"%s","phase":"Connected","latencyMicroseconds":250,"interface":"x"}' "$r" > "$f.tmp" && mv "$f.tmp" "$f"
  sleep 0.1
done`

func newTestFabric(t *testing.T, pools ...netip.Prefix) (*Fabric, client.Client, *network.Registry) {
	t.Helper()
	return newTestFabricWith(t, func(cfg *Config) { cfg.Pools = pools })
}

// newTestFabricWith is newTestFabric with the Config changed by opt.
func newTestFabricWith(t *testing.T, opt func(*Config)) (*Fabric, client.Client, *network.Registry) {
	t.Helper()
	scheme := runtime.NewScheme()
	_ = corev1.AddToScheme(scheme)
	c := fake.NewClientBuilder().WithScheme(scheme).Build()
	reg := network.NewRegistry()
	cfg := Config{ClusterID: "rome", PodCIDR: mustPrefix("10.244.0.0/16"),
		GatewayAddress: "198.18.0.1", FirstPort: 51820, LastPort: 51822, Namespace: "liqo",
		StateDir: t.TempDir(), Command: []string{"/bin/sh", "-c", fakeGateway, "gw"}, Registry: reg}
	opt(&cfg)
	f, err := New(cfg, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.sup.StopAll() })
	return f, c, reg
}

// published is what peer id publishes; the same key on every call, as a
// real peer's manager would.
func published(t *testing.T, id string) Published {
	if peerData[id] == nil {
		peerData[id] = validData(t)
		peerData[id]["clusterID"] = id
	}
	d := map[string]string{}
	for k, v := range peerData[id] {
		d[k] = v
	}
	return Published{Source: "ConfigMap liqo-tenant-rome/liqo-network-provider on " + id, Found: true, Data: d}
}

var peerData = map[string]map[string]string{}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestSyncPublishesOnlyThePublicKeyAndRunsTheGateway(t *testing.T) {
	f, c, reg := newTestFabric(t)
	ctx := context.Background()
	pub, st, err := f.Sync(ctx, Peer{ClusterID: "milan"}, Published{Source: "cm"})
	if err != nil || st.Phase != PhasePending || st.Reason != ReasonWaitingForPeer {
		t.Fatalf("before the peer publishes: %+v, %v; want Pending/%s", st, err, ReasonWaitingForPeer)
	}
	secrets := &corev1.SecretList{}
	_ = c.List(ctx, secrets)
	if len(secrets.Items) != 1 {
		t.Fatalf("want one key Secret, got %d", len(secrets.Items))
	}
	priv := string(secrets.Items[0].Data[privateKeyKey])
	for k, v := range pub {
		if strings.Contains(v, priv) {
			t.Fatalf("published key %q carries the private key", k)
		}
	}
	if pub["endpoint"] != "198.18.0.1:51820" || pub["publicKey"] == "" {
		t.Fatalf("published %v; want endpoint 198.18.0.1:51820 and a public key", pub)
	}
	var state State
	eventually(t, "the gateway to report Connected", func() bool {
		pub, state, err = f.Sync(ctx, Peer{ClusterID: "milan"}, published(t, "milan"))
		return err == nil && state.Phase == PhaseConnected
	})
	// Both clusters use 10.244.0.0/16: milan is remapped, and the
	// reflectors' registry says so.
	if pub["remappedPeerPodCIDR"] != "10.208.0.0/16" {
		t.Fatalf("remappedPeerPodCIDR = %q, want 10.208.0.0/16 (first /16 of the default pool)", pub["remappedPeerPodCIDR"])
	}
	if got := reg.MapRemoteIP("milan", "10.244.1.10"); got != "10.208.1.10" {
		t.Fatalf("MapRemoteIP(milan, 10.244.1.10) = %s, want 10.208.1.10", got)
	}
	if got := reg.MapLocalIP("milan", "10.244.3.4"); got != "10.208.3.4" {
		t.Fatalf("MapLocalIP = %s: the peer's view of our pods was not recorded", got)
	}
	if len(f.Statuses()) != 1 || f.Statuses()[0].RemoteClusterID != "milan" {
		t.Fatalf("Statuses() = %+v, want milan's", f.Statuses())
	}
}

func TestAKilledGatewayIsRestarted(t *testing.T) {
	f, _, _ := newTestFabric(t)
	ctx := context.Background()
	pidFile := filepath.Join(f.cfg.StateDir, InterfaceName("rome", "milan")+".status.json.pid")
	var first string
	eventually(t, "the first gateway", func() bool {
		_, st, _ := f.Sync(ctx, Peer{ClusterID: "milan"}, published(t, "milan"))
		b, _ := os.ReadFile(pidFile)
		first = strings.TrimSpace(string(b))
		return st.Phase == PhaseConnected && first != ""
	})
	var pid int
	if _, err := fmt.Sscan(first, &pid); err != nil {
		t.Fatalf("pid file holds %q: %v", first, err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a new gateway process", func() bool {
		b, _ := os.ReadFile(pidFile)
		now := strings.TrimSpace(string(b))
		_, st, _ := f.Sync(ctx, Peer{ClusterID: "milan"}, published(t, "milan"))
		return now != "" && now != first && st.Phase == PhaseConnected
	})
	proc, _ := f.sup.State(InterfaceName("rome", "milan"))
	if proc.Restarts != 1 {
		t.Fatalf("restarts = %d, want 1", proc.Restarts)
	}
}

func TestBadPeerParametersAndFullPoolsAreErrorsThatSayWhy(t *testing.T) {
	// A pool that holds exactly two /16s: the third overlapping peer finds no room.
	f, c, _ := newTestFabric(t, mustPrefix("10.208.0.0/15"))
	ctx := context.Background()
	good, _, err := f.Sync(ctx, Peer{ClusterID: "milan"}, published(t, "milan"))
	if err != nil {
		t.Fatal(err)
	}
	bad := published(t, "milan")
	bad.Data["publicKey"] = "c2hvcnQ="
	pub, st, err := f.Sync(ctx, Peer{ClusterID: "milan"}, bad)
	if err != nil || st.Phase != PhaseError || st.Reason != ReasonInvalidPeerParameters || !strings.Contains(st.Message, `key "publicKey"`) {
		t.Fatalf("wrong-size key: %+v, %v", st, err)
	}
	if pub["remappedPeerPodCIDR"] != good["remappedPeerPodCIDR"] || pub["remappedPeerPodCIDR"] == "" {
		t.Fatalf("a bad peer key made us publish remap %q instead of the working %q", pub["remappedPeerPodCIDR"], good["remappedPeerPodCIDR"])
	}
	if _, st, _ = f.Sync(ctx, Peer{ClusterID: "naples"}, published(t, "naples")); st.Phase == PhaseError {
		t.Fatalf("naples: %+v; want it unaffected by milan's bad key", st)
	}
	_, st, err = f.Sync(ctx, Peer{ClusterID: "florence"}, published(t, "florence"))
	if err != nil || st.Reason != ReasonRemapFailed || !strings.Contains(st.Message, "--remap-pools") {
		t.Fatalf("pools full: %+v, %v; want %s naming --remap-pools", st, err, ReasonRemapFailed)
	}
	// The range has three ports; milan, naples and florence hold them.
	if _, _, err := f.Sync(ctx, Peer{ClusterID: "venice"}, published(t, "venice")); err == nil || !strings.Contains(err.Error(), "--gateway-ports") {
		t.Fatalf("a full port range must be an error naming --gateway-ports, got %v", err)
	}
	if err := f.Release(ctx, "milan"); err != nil {
		t.Fatal(err)
	}
	secrets := &corev1.SecretList{}
	_ = c.List(ctx, secrets)
	for _, s := range secrets.Items {
		if s.Labels["liqo.io/remote-cluster-id"] == "milan" {
			t.Fatalf("Release left milan's key Secret %s", s.Name)
		}
	}
}
