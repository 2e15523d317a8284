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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// seriesMentioning counts the series of the manager's registry with a label
// value containing s.
func seriesMentioning(t *testing.T, s string) int {
	t.Helper()
	families, err := metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if strings.Contains(l.GetValue(), s) {
					n++
					break
				}
			}
		}
	}
	return n
}

// A peering's reflector must not leave series behind it: the manager
// creates and deletes peerings for its whole life, and every series kept
// for a gone peer is memory kept (a workqueue's two histograms are KBs).
func TestAStoppedReflectorLeavesNoWorkqueueSeries(t *testing.T) {
	g := NewWithT(t)
	r := New(Kind{Name: "leakkind"}, Peer{RemoteClusterID: "leak-queue-id", RemoteClusterName: "leak-queue-name"}, nil, Options{})
	r.queue.Add(types.NamespacedName{Namespace: "ns", Name: "n"})
	key, _ := r.queue.Get()
	r.queue.Done(key)
	r.Stop()
	r.queue.ShutDown()
	g.Expect(seriesMentioning(t, "leak-queue-name")).To(BeZero())
}

func TestAStoppedSetLeavesNoSeriesOfItsPeer(t *testing.T) {
	g := NewWithT(t)
	const id = "leak-set-id"
	RecordError("event", id)
	_ = Recovering("configmap", id, "ns/name", func() error { panic("boom") })
	errorCounter.WithLabelValues("secret", id).Add(0)
	itemCounter.WithLabelValues("secret", id).Set(2)
	g.Expect(seriesMentioning(t, id)).NotTo(BeZero())
	s := &Set{remoteClusterID: id}
	s.Stop()
	g.Expect(seriesMentioning(t, id)).To(BeZero())
	// Another peer's series stay.
	RecordError("event", "other-peer-id")
	(&Set{remoteClusterID: id}).Stop()
	g.Expect(seriesMentioning(t, "other-peer-id")).NotTo(BeZero())
}
