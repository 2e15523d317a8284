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

package lab

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
)

// Ports are the loopback ports of one cluster's components.
type Ports struct {
	EtcdClient        int `json:"etcdClient"`
	EtcdPeer          int `json:"etcdPeer"`
	APIServer         int `json:"apiServer"`
	ControllerManager int `json:"controllerManager"`
	Scheduler         int `json:"scheduler"`
	Kwok              int `json:"kwok"`
	// PeerLink is where the cluster's peers reach its API server (PeerLink,
	// peerlink.go), PeerLinkControl where the lab partitions and heals it.
	PeerLink        int `json:"peerLink"`
	PeerLinkControl int `json:"peerLinkControl"`
}

// portsPerCluster leaves room for components later issues add (controllers,
// webhooks): the six components, 14 extra ports, the peer link's two, two spare.
const portsPerCluster = 24

// peerLinkOffset is the peer link's first port in a cluster's block, after the extra ports.
const peerLinkOffset = firstExtraPort + extraPorts

// DefaultPortBase keeps the lab away from the ephemeral range and common dev servers.
const DefaultPortBase = 17000

// AllocatePorts returns the ports of the cluster at index i of a lab whose
// block starts at base. Ports are a pure function of (base, i) so that a lab
// restarted from its state file keeps every address, and kubeconfigs stay valid.
func AllocatePorts(base, i int) (Ports, error) {
	if i < 0 {
		return Ports{}, fmt.Errorf("cluster index %d is negative", i)
	}
	first := base + i*portsPerCluster
	if base < 1024 || first+portsPerCluster > 65535 {
		return Ports{}, fmt.Errorf("port base %d with cluster index %d leaves the range 1024-65535: choose a --port-base between 1024 and %d",
			base, i, 65535-portsPerCluster*(i+1))
	}
	return Ports{
		EtcdClient: first, EtcdPeer: first + 1, APIServer: first + 2,
		ControllerManager: first + 3, Scheduler: first + 4, Kwok: first + 5,
		PeerLink: first + peerLinkOffset, PeerLinkControl: first + peerLinkOffset + 1,
	}, nil
}

// All lists the ports with the component that owns each, for error messages.
func (p Ports) All() map[string]int {
	return map[string]int{
		"etcd client": p.EtcdClient, "etcd peer": p.EtcdPeer, "kube-apiserver": p.APIServer,
		"kube-controller-manager": p.ControllerManager, "kube-scheduler": p.Scheduler, "kwok": p.Kwok,
		"peer link": p.PeerLink, "peer link control": p.PeerLinkControl,
	}
}

// ErrPortTaken reports a port that something else already listens on.
var ErrPortTaken = errors.New("port already in use")

// CheckPortFree fails with ErrPortTaken when 127.0.0.1:port cannot be bound.
func CheckPortFree(port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return fmt.Errorf("127.0.0.1:%d: %w", port, ErrPortTaken)
		}
		return err
	}
	return l.Close()
}

// CIDRs are a cluster's pod and service ranges.
type CIDRs struct {
	Pod     string `json:"pod"`
	Service string `json:"service"`
}

// Overlapping ranges every cluster shares when the lab is asked for overlap,
// the situation the network fabric has to remap.
var overlappingCIDRs = CIDRs{Pod: "10.244.0.0/16", Service: "10.96.0.0/16"}

// maxClusters bounds the distinct /16s carved out of 10.64.0.0/10 and 10.128.0.0/10.
const maxClusters = 64

// AllocateCIDRs returns the ranges of the cluster at index i: disjoint /16s per
// cluster, or the same ranges for all when overlap is true.
func AllocateCIDRs(i int, overlap bool) (CIDRs, error) {
	if i < 0 || i >= maxClusters {
		return CIDRs{}, fmt.Errorf("cluster index %d out of range: the lab allocates CIDRs for at most %d clusters", i, maxClusters)
	}
	if overlap {
		return overlappingCIDRs, nil
	}
	return CIDRs{Pod: fmt.Sprintf("10.%d.0.0/16", 64+i), Service: fmt.Sprintf("10.%d.0.0/16", 128+i)}, nil
}

// FirstServiceIP is the address the apiserver gives the kubernetes Service; it
// must be in the serving certificate.
func FirstServiceIP(serviceCIDR string) (net.IP, error) {
	p, err := netip.ParsePrefix(serviceCIDR)
	if err != nil {
		return nil, fmt.Errorf("service CIDR %q: %w", serviceCIDR, err)
	}
	return net.IP(p.Masked().Addr().Next().AsSlice()), nil
}
