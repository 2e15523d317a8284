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
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestBothEndsAgreeOnTheTunnelSubnet(t *testing.T) {
	consumer := GatewayPlan{Role: Consumer, Local: Params{ClusterID: "rome"}, Remote: Params{ClusterID: "milan"}}
	provider := GatewayPlan{Role: Provider, Local: Params{ClusterID: "milan"}, Remote: Params{ClusterID: "rome"}}
	cl, cp := consumer.TunnelAddresses()
	pl, pp := provider.TunnelAddresses()
	if cl != pp || cp != pl {
		t.Fatalf("consumer has %s→%s, provider %s→%s: each must see the other's address as its peer", cl, cp, pl, pp)
	}
	if cl.Masked() != cp.Masked() || cl.Addr() == cp.Addr() || !tunnelSpace.Contains(cl.Addr()) {
		t.Fatalf("tunnel addresses %s and %s must be two addresses of one /30 inside %s", cl, cp, tunnelSpace)
	}
	other, _ := TunnelAddresses("rome", "naples")
	if other.Masked() == cl.Masked() {
		t.Fatalf("rome→milan and rome→naples share tunnel subnet %s", cl.Masked())
	}
}

func TestInterfaceNamesFitLinuxAndDifferPerDirection(t *testing.T) {
	a, b := InterfaceName("rome", "milan"), InterfaceName("milan", "rome")
	if a == b || len(a) > 15 || len(b) > 15 {
		t.Fatalf("InterfaceName gave %q and %q: want two different names of at most 15 bytes", a, b)
	}
}

func TestArgsPassTheRemapExplicitly(t *testing.T) {
	m := netip.MustParsePrefix("10.208.0.0/16")
	p := GatewayPlan{Role: Consumer, Interface: "spwx", ListenPort: 51821,
		Local:   Params{ClusterID: "rome", PodCIDR: netip.MustParsePrefix("10.244.0.0/16")},
		Remote:  Params{ClusterID: "milan", Endpoint: "198.18.0.2:51820", PodCIDR: netip.MustParsePrefix("10.244.0.0/16")},
		Mapping: mapping("milan", "10.244.0.0/16", m.String())}
	args := p.Args()
	for _, want := range []string{"--remapped-remote-cidr=10.208.0.0/16", "--remote-pod-cidr=10.244.0.0/16",
		"--peer-endpoint=198.18.0.2:51820", "--listen-port=51821", "--metrics-bind-address=0"} {
		if !slices.Contains(args, want) {
			t.Errorf("args %s lack %s", strings.Join(args, " "), want)
		}
	}
}

func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

func TestArgsPassTheMTUOnlyWhenOneIsSet(t *testing.T) {
	p := GatewayPlan{Role: Consumer, Local: Params{ClusterID: "rome"}, Remote: Params{ClusterID: "milan"}}
	for _, a := range p.Args() {
		if strings.HasPrefix(a, "--mtu") {
			t.Fatalf("args carry %s without an MTU set: the gateway's own default must apply", a)
		}
	}
	p.MTU = 8920
	if args := p.Args(); !slices.Contains(args, "--mtu=8920") {
		t.Fatalf("args %s lack --mtu=8920", strings.Join(args, " "))
	}
}
