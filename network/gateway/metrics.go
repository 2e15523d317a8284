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
	"github.com/prometheus/client_golang/prometheus"
)

var (
	implementationDesc = prometheus.NewDesc("liqo_wireguard_implementation",
		"WireGuard implementation of the gateway: 1 for the one in use.", []string{"implementation"}, nil)
	receiveDesc = prometheus.NewDesc("liqo_peer_receive_bytes_total",
		"Bytes received from the peer through the tunnel since the gateway started.", []string{"remote_cluster_id"}, nil)
	transmitDesc = prometheus.NewDesc("liqo_peer_transmit_bytes_total",
		"Bytes sent to the peer through the tunnel since the gateway started.", []string{"remote_cluster_id"}, nil)
	latencyDesc = prometheus.NewDesc("liqo_peer_latency_us",
		"Round-trip time of the last answered UDP probe through the tunnel, in microseconds.", []string{"remote_cluster_id"}, nil)
	connectedDesc = prometheus.NewDesc("liqo_peer_is_connected",
		"1 when the peer answered a probe through the tunnel recently, else 0.", []string{"remote_cluster_id"}, nil)
)

// collector reports gateways' Status at scrape time, so metrics and /status
// never disagree.
type collector struct{ statuses func() []Status }

// NewCollector returns the Prometheus collector of a status source, usually Gateway.Status.
func NewCollector(status func() Status) prometheus.Collector {
	return collector{statuses: func() []Status { return []Status{status()} }}
}

// NewFleetCollector reports every status statuses returns, one series per
// remote cluster: the manager's view of all the gateways it supervises.
func NewFleetCollector(statuses func() []Status) prometheus.Collector {
	return collector{statuses: statuses}
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{implementationDesc, receiveDesc, transmitDesc, latencyDesc, connectedDesc} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	statuses := c.statuses()
	inUse := map[Implementation]bool{}
	for _, s := range statuses {
		inUse[s.Implementation] = true
		id := s.RemoteClusterID
		ch <- prometheus.MustNewConstMetric(receiveDesc, prometheus.CounterValue, float64(s.ReceiveBytes), id)
		ch <- prometheus.MustNewConstMetric(transmitDesc, prometheus.CounterValue, float64(s.TransmitBytes), id)
		ch <- prometheus.MustNewConstMetric(latencyDesc, prometheus.GaugeValue, float64(s.LatencyMicroseconds), id)
		ch <- prometheus.MustNewConstMetric(connectedDesc, prometheus.GaugeValue, boolValue(s.Phase == PhaseConnected), id)
	}
	if len(statuses) == 0 {
		return
	}
	for _, impl := range []Implementation{ImplementationKernel, ImplementationUserspace} {
		ch <- prometheus.MustNewConstMetric(implementationDesc, prometheus.GaugeValue, boolValue(inUse[impl]), string(impl))
	}
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
