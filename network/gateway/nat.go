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
	"errors"
	"fmt"

	"github.com/coreos/go-iptables/iptables"

	"github.com/spillway-dev/spillway/network"
)

// natRule is one iptables rule of a gateway's own chains.
type natRule struct {
	table, chain string
	spec         []string
}

// natChains names the gateway's chains after its interface, so gateways of
// several peerings can share a namespace and a restart replaces its own.
type natChains struct {
	mark, pre, post string
}

func chainsFor(iface string) natChains {
	return natChains{mark: "SPW-MARK-" + iface, pre: "SPW-PRE-" + iface, post: "SPW-POST-" + iface}
}

// jumps hooks the gateway's chains into the built-in ones: marking must run in
// mangle, before nat rewrites the destination the policy rule routes on.
func (c natChains) jumps() []natRule {
	return []natRule{
		{"mangle", "PREROUTING", []string{"-j", c.mark}},
		{"nat", "PREROUTING", []string{"-j", c.pre}},
		{"nat", "POSTROUTING", []string{"-j", c.post}},
	}
}

// natRules is the datapath of a remapped peering, with L the local pod CIDR,
// R the remote's and M the remap local pods use for R. Through the tunnel
// travel real addresses; each side translates only with its own mapping, so
// neither needs to know how its peer remapped it:
//   - local pod to M: mark (policy routing sends it into the tunnel), then
//     NETMAP M->R on the destination;
//   - from the tunnel: mark, then NETMAP R->M on the source, so a local pod
//     sees the remote pod at M and answers there.
//
// Replies are translated back by conntrack and still match "destination M".
func natRules(c natChains, r routing, m network.Mapping) []natRule {
	markIn := fmt.Sprintf("%#x/%#x", r.markIn, markMask)
	markOut := fmt.Sprintf("%#x/%#x", r.markOut, markMask)
	M, R := m.Local.String(), m.Remote.String()
	return []natRule{
		{"mangle", c.mark, []string{"-i", r.iface, "-j", "MARK", "--set-xmark", markIn}},
		{"mangle", c.mark, []string{"!", "-i", r.iface, "-d", M, "-j", "MARK", "--set-xmark", markOut}},
		{"nat", c.pre, []string{"!", "-i", r.iface, "-d", M, "-j", "NETMAP", "--to", R}},
		{"nat", c.post, []string{"-m", "mark", "--mark", markIn, "-s", R, "-j", "NETMAP", "--to", M}},
	}
}

// nat programs a peering's remap with iptables in the gateway's namespace.
type nat struct {
	ipt    *iptables.IPTables
	chains natChains
}

func newNAT(iface string) (*nat, error) {
	ipt, err := iptables.New()
	if err != nil {
		return nil, fmt.Errorf("iptables is needed to remap an overlapping pod CIDR (install it, e.g. hack/netdeps.sh): %w", err)
	}
	return &nat{ipt: ipt, chains: chainsFor(iface)}, nil
}

// setUp flushes the gateway's chains and writes rules into them, so running
// it again (or after a crash) converges on the same rules.
func (n *nat) setUp(r routing, m network.Mapping) error {
	for _, j := range n.chains.jumps() {
		if err := n.ipt.ClearChain(j.table, j.spec[1]); err != nil {
			return fmt.Errorf("creating iptables chain %s/%s: %w", j.table, j.spec[1], err)
		}
		if err := n.ipt.AppendUnique(j.table, j.chain, j.spec...); err != nil {
			return fmt.Errorf("hooking %s into %s/%s: %w", j.spec[1], j.table, j.chain, err)
		}
	}
	for _, rule := range natRules(n.chains, r, m) {
		if err := n.ipt.Append(rule.table, rule.chain, rule.spec...); err != nil {
			return fmt.Errorf("adding iptables rule %v to %s/%s: %w", rule.spec, rule.table, rule.chain, err)
		}
	}
	return nil
}

// tearDown unhooks and deletes the gateway's chains; missing ones are fine.
func (n *nat) tearDown() error {
	var errs []error
	for _, j := range n.chains.jumps() {
		if err := n.ipt.DeleteIfExists(j.table, j.chain, j.spec...); err != nil {
			errs = append(errs, err)
		}
		exists, err := n.ipt.ChainExists(j.table, j.spec[1])
		if err == nil && exists {
			err = n.ipt.ClearAndDeleteChain(j.table, j.spec[1])
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
