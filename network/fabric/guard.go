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
	"errors"
	"fmt"
	"net/netip"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// DefaultWidestPeerPodCIDR is the prefix length of the widest pod CIDR a peer
// may publish when Config.WidestPeerPodCIDR is zero: a /12 holds a million
// pods, more than any cluster runs, and is what the default remap pool
// (10.208.0.0/12) can still hold once.
const DefaultWidestPeerPodCIDR = 12

// namedRange is a range no peer's pod CIDR may reach, with the words that
// tell an operator where it comes from.
type namedRange struct {
	prefix netip.Prefix
	what   string
}

// specialRanges are never pod addresses; routing one of them into a tunnel
// breaks the host (loopback, the link-local range the tunnel addresses live
// in) or makes no sense (multicast, reserved).
var specialRanges = []namedRange{
	{netip.MustParsePrefix("0.0.0.0/8"), `the "this network" range 0.0.0.0/8`},
	{netip.MustParsePrefix("127.0.0.0/8"), "the loopback range 127.0.0.0/8"},
	{netip.MustParsePrefix("169.254.0.0/16"), "the link-local range 169.254.0.0/16, which holds the tunnel addresses"},
	{netip.MustParsePrefix("224.0.0.0/4"), "the multicast range 224.0.0.0/4"},
	{netip.MustParsePrefix("240.0.0.0/4"), "the reserved range 240.0.0.0/4"},
}

// peerGuard is what this cluster refuses from a peer's published
// parameters. A peer's pod CIDR ends up in this host's routes (the main
// table when nothing local overlaps it), so a peer that publishes
// 128.0.0.0/1 or this cluster's node subnet would otherwise take those
// addresses over. An overlap with the local pod CIDR is not refused: that is
// the ordinary case the remap exists for, and the remapped route lives in
// the gateway's own table, reached only by traffic to the remap.
type peerGuard struct {
	// widest is the smallest prefix length accepted.
	widest int
	// protected are the local ranges a peer's pod CIDR must not overlap.
	protected []namedRange
	// localPodBits is the size of the local pod CIDR, which the peer's
	// remap of it must have.
	localPodBits int
}

// newPeerGuard collects the local ranges of cfg that a peer must not reach.
func newPeerGuard(cfg Config) peerGuard {
	g := peerGuard{widest: cfg.WidestPeerPodCIDR, localPodBits: cfg.PodCIDR.Bits()}
	if g.widest == 0 {
		g.widest = DefaultWidestPeerPodCIDR
	}
	g.protected = localRanges(cfg)
	if a, err := netip.ParseAddr(cfg.GatewayAddress); err == nil {
		g.protected = append(g.protected, namedRange{netip.PrefixFrom(a, a.BitLen()), fmt.Sprintf("this cluster's gateway address %s (--gateway-address)", a)})
	}
	g.protected = append(g.protected, specialRanges...)
	return g
}

// check refuses the ranges of p, read from source, that this cluster must
// not install; every problem names the key, the value and the limit it
// breaks, and all are reported at once.
func (g peerGuard) check(source string, p Params) error {
	var errs []error
	if pod := p.PodCIDR; pod.IsValid() {
		if pod.Bits() < g.widest {
			errs = append(errs, fmt.Errorf("%s: key %q is %s, wider than /%d, the widest pod CIDR this cluster accepts from a peer (--widest-peer-pod-cidr=%d): the peer must publish its own pod CIDR, or this cluster's operator raises the limit",
				source, sharingv1alpha1.NetworkPodCIDRKey, pod, g.widest, g.widest))
		}
		for _, r := range g.protected {
			if pod.Overlaps(r.prefix) {
				errs = append(errs, fmt.Errorf("%s: key %q is %s, which overlaps %s: routing it to the peer would take over local addresses; the peer must use another pod CIDR, or this cluster's operator corrects the flag",
					source, sharingv1alpha1.NetworkPodCIDRKey, pod, r.what))
			}
		}
	}
	if r := p.RemappedPeerPodCIDR; r.IsValid() && g.localPodBits != 0 && r.Bits() != g.localPodBits {
		errs = append(errs, fmt.Errorf("%s: key %q is %s, but this cluster's pod CIDR is a /%d: a remap maps addresses one to one, so it must be the same size; check the peer's --remap-pools",
			source, sharingv1alpha1.NetworkRemappedPeerPodCIDRKey, r, g.localPodBits))
	}
	return errors.Join(errs...)
}

// localRanges are the service and node ranges of cfg, named by their flags.
func localRanges(cfg Config) []namedRange {
	var out []namedRange
	for _, p := range cfg.ServiceCIDRs {
		out = append(out, namedRange{p, fmt.Sprintf("this cluster's service CIDR %s (--service-cidr)", p)})
	}
	for _, p := range cfg.NodeCIDRs {
		out = append(out, namedRange{p, fmt.Sprintf("this cluster's node CIDR %s (--node-cidrs)", p)})
	}
	return out
}

// checkLocalRanges catches flags that contradict each other: a pod CIDR
// inside the service or node ranges is a typo that would make every peer
// look hostile.
func checkLocalRanges(cfg Config) []error {
	var errs []error
	for _, r := range localRanges(cfg) {
		if cfg.PodCIDR.IsValid() && cfg.PodCIDR.Overlaps(r.prefix) {
			errs = append(errs, fmt.Errorf("--pod-cidr %s overlaps %s: correct one of the two flags", cfg.PodCIDR, r.what))
		}
	}
	return errs
}
