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

package reflection

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The seed's virtual-kubelet metrics, served on the manager's metrics
// endpoint. The item counter goes up and down with the copies that exist, as
// the seed describes, so it is a gauge despite its name.
var (
	itemCounter = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "liqo_virtual_kubelet_reflection_item_counter",
		Help: "Objects currently reflected to a remote cluster, by resource.",
	}, []string{"resource", "remote_cluster_id"})
	errorCounter = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "liqo_virtual_kubelet_reflection_error_counter",
		Help: "Failed reflection attempts (most are retried), by resource.",
	}, []string{"resource", "remote_cluster_id"})
	// panicCounter is Spillway's own: a panic is a bug to report, not a
	// remote error to retry, and deserves its own alert.
	panicCounter = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "spillway_reflection_panics_total",
		Help: "Reflection attempts that panicked and were recovered, by resource.",
	}, []string{"resource", "remote_cluster_id"})
)

func init() {
	metrics.Registry.MustRegister(itemCounter, errorCounter, panicCounter)
}

// RecordError counts a failed attempt of a reflector outside this engine
// (events travel the other way).
func RecordError(resource, remoteClusterID string) {
	errorCounter.WithLabelValues(resource, remoteClusterID).Inc()
}

// forgetPeer deletes every reflection series of a peer, once its reflectors
// have stopped: counters kept for a gone peer are memory kept for the life of
// the process, since the manager peers and unpeers for as long as it runs.
// A peer whose session restarts (new server or CA) starts its counters at 0
// again, which Prometheus reads as a counter reset.
func forgetPeer(remoteClusterID string) {
	if remoteClusterID == "" {
		return
	}
	peer := prometheus.Labels{"remote_cluster_id": remoteClusterID}
	for _, v := range []*prometheus.MetricVec{itemCounter.MetricVec, errorCounter.MetricVec, panicCounter.MetricVec} {
		v.DeletePartialMatch(peer)
	}
}
