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
	"fmt"
	"net/netip"

	"github.com/spillway-dev/spillway/network"
)

// parseMapping parses the pod CIDRs and decides where the remote one appears
// locally: --remapped-remote-cidr when given, else what IPAM computes from
// --reserved-subnets, --external-cidr and --remap-pools. A gateway sees only
// its own peering, so when several peerings remap, list the others' remaps
// in --reserved-subnets (or pass --remapped-remote-cidr from the controller).
func (o options) parseMapping(add func(error)) (netip.Prefix, network.Mapping) {
	local, errL := parseV4CIDR("--local-pod-cidr", o.localPodCIDR)
	remote, errR := parseV4CIDR("--remote-pod-cidr", o.remotePodCIDR)
	cfg, errC := o.ipamConfig(local)
	for _, err := range []error{errL, errR, errC} {
		if err != nil {
			add(err)
		}
	}
	if errL != nil || errR != nil || errC != nil {
		return local, network.Mapping{}
	}
	if o.remappedRemoteCIDR != "" {
		m, err := explicitMapping(o.remoteClusterID, remote, o.remappedRemoteCIDR, cfg)
		if err != nil {
			add(err)
		}
		return local, m
	}
	ipam, err := network.NewIPAM(cfg, nil)
	if err != nil {
		add(err)
		return local, network.Mapping{}
	}
	m, err := ipam.Allocate(o.remoteClusterID, remote)
	if err != nil {
		add(fmt.Errorf("--remote-pod-cidr %s: %w; or pass --remapped-remote-cidr", remote, err))
	}
	return local, m
}

func (o options) ipamConfig(local netip.Prefix) (network.IPAMConfig, error) {
	cfg := network.IPAMConfig{LocalPodCIDR: local}
	var err error
	if o.externalCIDR != "" {
		if cfg.ExternalCIDR, err = network.ParseCIDR("--external-cidr", o.externalCIDR); err != nil {
			return cfg, err
		}
	}
	if cfg.Reserved, err = network.ParseCIDRList("--reserved-subnets", o.reservedSubnets); err != nil {
		return cfg, err
	}
	cfg.Pools, err = network.ParseCIDRList("--remap-pools", o.remapPools)
	return cfg, err
}

// explicitMapping checks a remap chosen by hand: NETMAP needs the same size,
// and it must not land on anything local.
func explicitMapping(remoteID string, remote netip.Prefix, s string, cfg network.IPAMConfig) (network.Mapping, error) {
	m, err := parseV4CIDR("--remapped-remote-cidr", s)
	if err != nil {
		return network.Mapping{}, err
	}
	if m.Bits() != remote.Bits() {
		return network.Mapping{}, fmt.Errorf("--remapped-remote-cidr %s must be a /%d like --remote-pod-cidr %s: addresses are mapped one to one", m, remote.Bits(), remote)
	}
	local := append([]netip.Prefix{cfg.LocalPodCIDR}, cfg.Reserved...)
	if cfg.ExternalCIDR.IsValid() {
		local = append(local, cfg.ExternalCIDR)
	}
	for _, q := range local {
		if m.Overlaps(q) {
			return network.Mapping{}, fmt.Errorf("--remapped-remote-cidr %s overlaps local subnet %s: pick a free range, or omit it to have one allocated from --remap-pools", m, q)
		}
	}
	mapping := network.Mapping{RemoteClusterID: remoteID, Remote: remote, Local: m}
	return mapping, nil
}

// parseV4CIDR is network.ParseCIDR limited to IPv4, which is what the
// gateway's iptables and policy rules program today.
func parseV4CIDR(flag, s string) (netip.Prefix, error) {
	if s == "" {
		return netip.Prefix{}, fmt.Errorf("%s is required: write it as address/length, e.g. 10.244.0.0/16", flag)
	}
	p, err := network.ParseCIDR(flag, s)
	if err == nil && !p.Addr().Is4() {
		err = fmt.Errorf("%s %s is IPv6: the gateway handles IPv4 pod CIDRs only so far", flag, p)
	}
	return p, err
}
