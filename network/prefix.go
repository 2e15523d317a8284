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

package network

import (
	"fmt"
	"net/netip"
	"strings"
)

// ParseCIDR parses s as a network prefix named field (a flag or API field),
// rejecting host bits so that a typo such as 10.244.1.0/16 is not silently
// widened or narrowed.
func ParseCIDR(field, s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(strings.TrimSpace(s))
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%s %q is not a CIDR: write it as address/length, e.g. 10.244.0.0/16", field, s)
	}
	if p != p.Masked() {
		return netip.Prefix{}, fmt.Errorf("%s %q has host bits set: use %s", field, s, p.Masked())
	}
	return p, nil
}

// ParseCIDRList parses a comma-separated list of prefixes; empty items are skipped.
func ParseCIDRList(field, s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, item := range strings.Split(s, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		p, err := ParseCIDR(field, item)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// lastAddr is the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// translate moves addr from prefix from into prefix to, keeping its host bits:
// this is what iptables NETMAP does, so the library and the datapath agree.
func translate(addr netip.Addr, from, to netip.Prefix) netip.Addr {
	a, t := addr.AsSlice(), to.Masked().Addr().AsSlice()
	for i := 0; i < from.Bits(); i++ {
		mask := byte(0x80 >> (i % 8))
		a[i/8] = a[i/8]&^mask | t[i/8]&mask
	}
	out, _ := netip.AddrFromSlice(a)
	return out
}

func overlapsAny(p netip.Prefix, set []netip.Prefix) (netip.Prefix, bool) {
	for _, q := range set {
		if q.IsValid() && p.Overlaps(q) {
			return q, true
		}
	}
	return netip.Prefix{}, false
}

func joinPrefixes(ps []netip.Prefix) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, ",")
}
