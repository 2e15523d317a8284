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

package peering

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/spillway-dev/spillway/peering/virtualnode"
)

// Worker kinds: the long-lived goroutines a peering starts, one label value
// of spillway_peering_workers each.
const (
	// WorkerRetryPending retries pods waiting for their twin namespace.
	WorkerRetryPending = "retry-pending"
	// WorkerOrphanSweep collects ShadowPods whose local pod is gone.
	WorkerOrphanSweep = "orphan-sweep"
	// WorkerNodeController heartbeats the virtual node (virtual-kubelet's
	// node controller).
	WorkerNodeController = virtualnode.WorkerNodeController
	// WorkerNodeProbe checks the provider's API server for the node's health.
	WorkerNodeProbe = virtualnode.WorkerNodeProbe
)

// Metrics are the peering runtime's series. They outlive any one Runtime:
// the manager builds a new Runtime each time it regains its lease, and the
// series carry on across, so they are made once per process.
type Metrics struct {
	sessions prometheus.Gauge
	stopped  prometheus.Counter
	workers  *prometheus.GaugeVec
}

// NewMetrics makes the runtime's series and registers them with reg (nil:
// registered nowhere, as in unit tests).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{Name: "spillway_peering_sessions",
			Help: "Peerings whose runtime (virtual node, pod handler, reflection) is running in this manager."}),
		stopped: prometheus.NewCounter(prometheus.CounterOpts{Name: "spillway_peering_sessions_stopped_total",
			Help: "Peering sessions stopped (unpeered, deleted, or the manager stopping or losing its lease)."}),
		workers: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "spillway_peering_workers",
			Help: "Live goroutines of peerings by kind; 0 once every peering has gone away."}, []string{"kind"}),
	}
	for _, kind := range []string{WorkerRetryPending, WorkerOrphanSweep, WorkerNodeController, WorkerNodeProbe} {
		m.workers.WithLabelValues(kind) // exposed at 0 from the start, so a dashboard sees the return to 0
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.sessions, m.stopped, m.workers} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Go runs f on a goroutine counted under kind until it returns. Every
// long-lived goroutine of a peering starts here, so a leak shows as a
// worker count that does not return to 0.
func (m *Metrics) Go(kind string, f func()) {
	g := m.workers.WithLabelValues(kind)
	g.Inc()
	go func() {
		defer g.Dec()
		f()
	}()
}
