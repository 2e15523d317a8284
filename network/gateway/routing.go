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
	"hash/fnv"
	"net"
	"net/netip"
	"os"
	"path/filepath"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"

	"github.com/spillway-dev/spillway/network"
)

// markMask is the part of the packet mark a gateway uses, so that marks set by
// other software in the same namespace survive.
const markMask uint32 = 0x00ffffff

// routing is the per-peering slice of the gateway namespace's routing: a
// route table and two packet marks derived from the interface name, so a
// restarted gateway finds (and replaces) what its predecessor installed.
type routing struct {
	iface   string
	table   int
	markOut uint32 // local traffic to the remote's remapped CIDR
	markIn  uint32 // traffic that arrived through the tunnel
}

func newRouting(iface string) routing {
	h := fnv.New32a()
	h.Write([]byte(iface))
	table := 20000 + int(h.Sum32()%20000)
	return routing{iface: iface, table: table, markOut: uint32(table) << 1, markIn: uint32(table)<<1 | 1}
}

// setUp addresses and raises the tunnel interface and routes the remote pod
// CIDR into it. When the remote CIDR is remapped, the route lives in the
// gateway's own table, reached by packets marked as going to the remap: in
// the main table that CIDR is the local pod network.
func (r routing) setUp(tunnel netip.Prefix, m network.Mapping) error {
	link, err := netlink.LinkByName(r.iface)
	if err != nil {
		return fmt.Errorf("finding tunnel interface %s: %w", r.iface, err)
	}
	if err := netlink.AddrReplace(link, &netlink.Addr{IPNet: ipNet(tunnel)}); err != nil {
		return fmt.Errorf("adding --tunnel-address %s to %s: %w", tunnel, r.iface, err)
	}
	if err := netlink.LinkSetUp(link); err != nil {
		return fmt.Errorf("bringing %s up: %w", r.iface, err)
	}
	if err := r.sysctls(); err != nil {
		return err
	}
	route := &netlink.Route{LinkIndex: link.Attrs().Index, Dst: ipNet(m.Remote), Scope: netlink.SCOPE_LINK}
	if m.Remapped() {
		route.Table = r.table
		if err := r.replaceRule(); err != nil {
			return err
		}
	}
	if err := netlink.RouteReplace(route); err != nil {
		return fmt.Errorf("routing remote pod CIDR %s into %s: %w", m.Remote, r.iface, err)
	}
	return nil
}

// replaceRule installs "fwmark markOut lookup table", dropping any copy a
// killed predecessor left.
func (r routing) replaceRule() error {
	r.deleteRules()
	rule := r.rule()
	if err := netlink.RuleAdd(rule); err != nil {
		return fmt.Errorf("adding policy rule fwmark %#x lookup %d: %w", r.markOut, r.table, err)
	}
	return nil
}

func (r routing) rule() *netlink.Rule {
	rule := netlink.NewRule()
	rule.Family = unix.AF_INET
	rule.Mark = r.markOut
	mask := markMask
	rule.Mask = &mask
	rule.Table = r.table
	rule.Priority = 100
	return rule
}

func (r routing) deleteRules() {
	for {
		if err := netlink.RuleDel(r.rule()); err != nil {
			return
		}
	}
}

// tearDown removes the rule and the table's routes; the interface's own
// routes go with the interface.
func (r routing) tearDown() error {
	r.deleteRules()
	routes, err := netlink.RouteListFiltered(unix.AF_INET, &netlink.Route{Table: r.table}, netlink.RT_FILTER_TABLE)
	if err != nil {
		return fmt.Errorf("listing routes of table %d: %w", r.table, err)
	}
	var errs []error
	for i := range routes {
		errs = append(errs, netlink.RouteDel(&routes[i]))
	}
	return errors.Join(errs...)
}

// sysctls turns the namespace into a router and relaxes reverse-path
// filtering: packets from the tunnel carry remote pod IPs that, with
// overlapping CIDRs, strict filtering would take for spoofed local ones.
func (r routing) sysctls() error {
	settings := map[string]string{
		"ipv4/ip_forward":                     "1",
		"ipv4/conf/all/rp_filter":             "2",
		"ipv4/conf/" + r.iface + "/rp_filter": "2",
	}
	for key, value := range settings {
		path := filepath.Join("/proc/sys/net", key)
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
			return fmt.Errorf("setting %s=%s: %w", path, value, err)
		}
	}
	return nil
}

func ipNet(p netip.Prefix) *net.IPNet {
	return &net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}
}

func netipPrefixHost(a netip.Addr) netip.Prefix { return netip.PrefixFrom(a, a.BitLen()) }
