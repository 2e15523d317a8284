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
	"context"
	"strings"

	"github.com/spillway-dev/spillway/network/gateway"
)

// invalidStatus is what a gateway with a wrong configuration reports: phase
// Error (Ready=False) with every problem, each naming its flag, so that the
// peering's status says what to fix instead of the pod crash-looping silently.
func invalidStatus(o options, problems error) gateway.Status {
	return gateway.Status{
		ClusterID: o.clusterID, RemoteClusterID: o.remoteClusterID, Interface: o.interfaceName,
		PeerEndpoint: o.peerEndpoint, RemotePodCIDR: o.remotePodCIDR, Phase: gateway.PhaseError,
		Reason: "invalid configuration, nothing was set up: " + strings.ReplaceAll(problems.Error(), "\n", "; "),
	}
}

// serveInvalid writes invalidStatus to --status-file and serves it on
// /status and /metrics until ctx ends.
// It touches no interface, route or rule, so the host's other peerings are
// left exactly as they were. With metrics disabled it returns at once.
func serveInvalid(ctx context.Context, o options, problems error) error {
	st := invalidStatus(o, problems)
	if o.statusFile != "" {
		if err := writeStatusFile(o.statusFile, st); err != nil {
			return err
		}
	}
	if !metricsEnabled(o.metricsBindAddress) {
		return nil
	}
	srv, err := serveMetrics(o.metricsBindAddress, func() gateway.Status { return st })
	if err != nil {
		return err
	}
	<-ctx.Done()
	return srv.Close()
}

// metricsEnabled reports whether --metrics-bind-address asks for an endpoint.
func metricsEnabled(addr string) bool { return addr != "0" && addr != "" }
