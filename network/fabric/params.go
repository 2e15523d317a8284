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
	"net"
	"net/netip"
	"strconv"

	"golang.zx2c4.com/wireguard/wgctrl/wgtypes"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/network"
)

// Params is what one side of a peering publishes for the other's gateway.
type Params struct {
	ClusterID string
	PublicKey wgtypes.Key
	// Endpoint is the publisher's gateway UDP address, host:port.
	Endpoint     string
	PodCIDR      netip.Prefix
	ExternalCIDR netip.Prefix
	// RemappedPeerPodCIDR is where the publisher reaches the reader's pod
	// CIDR; invalid until the publisher has seen the reader's parameters.
	RemappedPeerPodCIDR netip.Prefix
}

// Data is p as ConfigMap data, under the keys of api/sharing/v1alpha1.
func (p Params) Data() map[string]string {
	d := map[string]string{
		sharingv1alpha1.NetworkClusterIDKey: p.ClusterID,
		sharingv1alpha1.NetworkPublicKeyKey: p.PublicKey.String(),
		sharingv1alpha1.NetworkEndpointKey:  p.Endpoint,
		sharingv1alpha1.NetworkPodCIDRKey:   p.PodCIDR.String(),
	}
	if p.ExternalCIDR.IsValid() {
		d[sharingv1alpha1.NetworkExternalCIDRKey] = p.ExternalCIDR.String()
	}
	if p.RemappedPeerPodCIDR.IsValid() {
		d[sharingv1alpha1.NetworkRemappedPeerPodCIDRKey] = p.RemappedPeerPodCIDR.String()
	}
	return d
}

// ParseParams validates a peer's published parameters. source names where
// they were read (e.g. "ConfigMap liqo-tenant-rome/liqo-network-consumer on
// milan"); every problem names its key, so the peering's status tells the
// peer's operator exactly what to fix. All problems are reported at once.
func ParseParams(source string, data map[string]string) (Params, error) {
	var p Params
	var errs []error
	bad := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: key %q %s", source, key, fmt.Sprintf(format, args...)))
	}
	p.ClusterID = data[sharingv1alpha1.NetworkClusterIDKey]
	if p.ClusterID == "" {
		bad(sharingv1alpha1.NetworkClusterIDKey, "is empty: the peer's manager writes its cluster ID there")
	}
	key, err := network.ParsePublicKey(`key "`+sharingv1alpha1.NetworkPublicKeyKey+`"`, data[sharingv1alpha1.NetworkPublicKeyKey])
	if err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", source, err))
	}
	p.PublicKey = key
	p.Endpoint = data[sharingv1alpha1.NetworkEndpointKey]
	if err := checkEndpoint(p.Endpoint); err != nil {
		bad(sharingv1alpha1.NetworkEndpointKey, "%v", err)
	}
	p.PodCIDR = parseCIDR(data, sharingv1alpha1.NetworkPodCIDRKey, true, bad)
	p.ExternalCIDR = parseCIDR(data, sharingv1alpha1.NetworkExternalCIDRKey, false, bad)
	p.RemappedPeerPodCIDR = parseCIDR(data, sharingv1alpha1.NetworkRemappedPeerPodCIDRKey, false, bad)
	return p, errors.Join(errs...)
}

func parseCIDR(data map[string]string, key string, required bool, bad func(string, string, ...any)) netip.Prefix {
	v, ok := data[key]
	if !ok || v == "" {
		if required {
			bad(key, "is empty: the peer's manager writes its --pod-cidr there")
		}
		return netip.Prefix{}
	}
	p, err := netip.ParsePrefix(v)
	if err != nil || !p.Addr().Is4() {
		bad(key, "is %q, not an IPv4 CIDR such as 10.244.0.0/16: check the peer manager's flags", v)
		return netip.Prefix{}
	}
	return p.Masked()
}

// checkEndpoint accepts host:port with a port in 1-65535.
func checkEndpoint(endpoint string) error {
	host, port, err := net.SplitHostPort(endpoint)
	if err != nil || host == "" {
		return fmt.Errorf("is %q, not host:port such as 198.51.100.7:51820: check the peer manager's --gateway-address", endpoint)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("is %q, whose port is not 1-65535", endpoint)
	}
	return nil
}
