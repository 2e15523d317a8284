package main

import (
	"flag"
	"net/netip"
	"strings"
	"testing"
)

func parseFabricFlags(t *testing.T, args ...string) fabricFlags {
	t.Helper()
	var f fabricFlags
	fs := flag.NewFlagSet("spillway-controller", flag.ContinueOnError)
	f.bind(fs)
	if err := fs.Parse(append([]string{"--gateway-address=198.18.0.1", "--pod-cidr=10.244.0.0/16"}, args...)); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestThePeerGuardFlagsHaveTheDocumentedDefaults(t *testing.T) {
	cfg, enabled, err := parseFabricFlags(t).config("rome", "liqo", nil)
	if err != nil || !enabled {
		t.Fatalf("config: %v, enabled %t", err, enabled)
	}
	if len(cfg.ServiceCIDRs) != 1 || cfg.ServiceCIDRs[0] != netip.MustParsePrefix("10.96.0.0/12") || len(cfg.NodeCIDRs) != 0 || cfg.WidestPeerPodCIDR != 12 {
		t.Fatalf("defaults: service %v, node %v, widest %d; want [10.96.0.0/12], [], 12", cfg.ServiceCIDRs, cfg.NodeCIDRs, cfg.WidestPeerPodCIDR)
	}
	cfg, _, err = parseFabricFlags(t, "--service-cidr=10.43.0.0/16", "--node-cidrs=192.168.1.0/24, 192.168.2.0/24", "--widest-peer-pod-cidr=16").config("rome", "liqo", nil)
	if err != nil || len(cfg.NodeCIDRs) != 2 || cfg.ServiceCIDRs[0].String() != "10.43.0.0/16" || cfg.WidestPeerPodCIDR != 16 {
		t.Fatalf("set: %+v, %v", cfg, err)
	}
	_, _, err = parseFabricFlags(t, "--node-cidrs=192.168.1.0/24,nope").config("rome", "liqo", nil)
	if err == nil || !strings.Contains(err.Error(), `--node-cidrs "nope"`) {
		t.Fatalf("a bad --node-cidrs: %v; want an error naming the flag and the value", err)
	}
}
