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

package gateway

import (
	"net/netip"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/network"
)

func TestNATRulesTranslateBothWays(t *testing.T) {
	g := NewWithT(t)
	r := routing{iface: "spw-milan", table: 30000, markOut: 60000, markIn: 60001}
	m := network.Mapping{RemoteClusterID: "milan", Remote: netip.MustParsePrefix("10.244.0.0/16"), Local: netip.MustParsePrefix("10.70.0.0/16")}
	var got []string
	for _, rule := range natRules(chainsFor("spw-milan"), r, m) {
		got = append(got, rule.table+" "+rule.chain+" "+strings.Join(rule.spec, " "))
	}
	g.Expect(got).To(Equal([]string{
		"mangle SPW-MARK-spw-milan -i spw-milan -j MARK --set-xmark 0xea61/0xffffff",
		"mangle SPW-MARK-spw-milan ! -i spw-milan -d 10.70.0.0/16 -j MARK --set-xmark 0xea60/0xffffff",
		"nat SPW-PRE-spw-milan ! -i spw-milan -d 10.70.0.0/16 -j NETMAP --to 10.244.0.0/16",
		"nat SPW-POST-spw-milan -m mark --mark 0xea61/0xffffff -s 10.244.0.0/16 -j NETMAP --to 10.70.0.0/16",
	}))
}

func TestChainNamesFitIptables(t *testing.T) {
	g := NewWithT(t)
	c := chainsFor("fifteen-chars-x")
	for _, name := range []string{c.mark, c.pre, c.post} {
		g.Expect(len(name)).To(BeNumerically("<=", 28), name) // XT_EXTENSION_MAXNAMELEN - 1
	}
	g.Expect(c.jumps()).To(HaveLen(3))
}

func TestRoutingIsStablePerInterface(t *testing.T) {
	g := NewWithT(t)
	a, b := newRouting("spw-milan"), newRouting("spw-milan")
	g.Expect(a).To(Equal(b))
	g.Expect(a.table).To(BeNumerically(">=", 20000))
	g.Expect(a.table).To(BeNumerically("<", 40000))
	g.Expect(a.markIn).NotTo(Equal(a.markOut))
	g.Expect(a.markIn & markMask).To(Equal(a.markIn))
	g.Expect(newRouting("spw-paris").table).NotTo(Equal(a.table))
}
