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

func TestProviderRangesGatherEveryRangeTheFlagsName(t *testing.T) {
	got, err := providerRanges(parseFabricFlags(t, "--service-cidr=10.43.0.0/16", "--node-cidrs=192.168.1.0/24", "--reserved-subnets=172.16.0.0/12"))
	if err != nil || len(got) != 4 {
		t.Fatalf("providerRanges = %v, %v; want the pod, service, node and reserved ranges", got, err)
	}
	if _, err := providerRanges(parseFabricFlags(t, "--node-cidrs=nope")); err == nil || !strings.Contains(err.Error(), "--node-cidrs") {
		t.Fatalf("a bad --node-cidrs: %v; want an error naming the flag", err)
	}
}

func TestTheGatewayMTUReachesTheFabricAndIsBounded(t *testing.T) {
	cfg, _, err := parseFabricFlags(t).config("rome", "liqo", nil)
	if err != nil || cfg.MTU != 1420 {
		t.Fatalf("default --gateway-mtu gave MTU %d, %v; want 1420, the gateway's own default", cfg.MTU, err)
	}
	if cfg, _, err = parseFabricFlags(t, "--gateway-mtu=8920").config("rome", "liqo", nil); err != nil || cfg.MTU != 8920 {
		t.Fatalf("--gateway-mtu=8920 gave MTU %d, %v", cfg.MTU, err)
	}
	for _, bad := range []string{"--gateway-mtu=576", "--gateway-mtu=9001"} {
		if _, _, err := parseFabricFlags(t, bad).config("rome", "liqo", nil); err == nil || !strings.Contains(err.Error(), "--gateway-mtu") {
			t.Errorf("%s: %v; want an error naming the flag and its range", bad, err)
		}
	}
}
