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

package podbench

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Stage is one point on the pods' way to Running: when each pod, by name,
// reached it. Pods keep their name at every hop, so one name follows a pod
// from the consumer through the broker to the provider.
type Stage struct {
	Name string
	At   map[string]time.Time
}

// Segment is the time from one stage to the next, over the pods seen at both.
type Segment struct {
	From, To string
	Pods     int
	P50, P99 time.Duration
	// SlowP50 is the p50 over the slowest pods only (Segments' slow): which
	// segment the tail's time goes to, where the p99 of every pod can
	// mislead (a segment's slowest pods need not be the path's).
	SlowP50 time.Duration
}

// Segments splits the way to Running into consecutive stages: where the
// time of a path goes, for every pod and for the pods named in slow. A pod
// missing from a stage is left out of the two segments around it only.
func Segments(stages []Stage, slow map[string]bool) []Segment {
	var out []Segment
	for i := 1; i < len(stages); i++ {
		from, to := stages[i-1], stages[i]
		var ds, slowDs []time.Duration
		for name, t0 := range from.At {
			if t1, ok := to.At[name]; ok {
				ds = append(ds, t1.Sub(t0))
				if slow[name] {
					slowDs = append(slowDs, t1.Sub(t0))
				}
			}
		}
		slices.Sort(ds)
		slices.Sort(slowDs)
		out = append(out, Segment{From: from.Name, To: to.Name, Pods: len(ds), P50: Percentile(ds, 0, 0.5), P99: Percentile(ds, 0, 0.99),
			SlowP50: Percentile(slowDs, 0, 0.5)})
	}
	return out
}

// scheduledTimes reads when the scheduler bound each pod of ns: the
// eventTime of its Scheduled event (events.k8s.io, microseconds; a pod's
// creationTimestamp has only seconds).
func scheduledTimes(ctx context.Context, c client.Client, ns string) (map[string]time.Time, error) {
	events := &eventsv1.EventList{}
	if err := c.List(ctx, events, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing the Scheduled events in namespace %s: %w", ns, err)
	}
	out := map[string]time.Time{}
	for _, e := range events.Items {
		// Event reflection relays the peers' Scheduled events too (Spillway's
		// reporting controller, no eventTime): only this cluster's scheduler counts.
		if e.Reason != "Scheduled" || e.ReportingController != "default-scheduler" || e.Regarding.Kind != "Pod" || e.EventTime.IsZero() {
			continue
		}
		if t, ok := out[e.Regarding.Name]; !ok || e.EventTime.Time.Before(t) {
			out[e.Regarding.Name] = e.EventTime.Time
		}
	}
	return out, nil
}

// WriteSegmentTable prints, per batch and path, the p50 and p99 of each
// segment of the way from create to Running.
func WriteSegmentTable(w io.Writer, results []Result) error {
	fmt.Fprintln(w, "Where the time goes: create → Running by segment (scheduled = the Scheduled event's eventTime in that cluster)")
	tw := newTable(w)
	fmt.Fprintln(tw, "pods\tpath\tfrom\tto\tp50\tp99\tslowest 1 %: p50\tpods seen\t")
	for _, r := range results {
		for _, m := range r.Modes() {
			for _, s := range r.Sample(m).Segments {
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n", r.Pods, m, s.From, s.To, dur(s.P50), dur(s.P99), dur(s.SlowP50), s.Pods)
			}
		}
	}
	return tw.Flush()
}

// hop is a namespace where a path's pods are scheduled.
type hop struct {
	cluster string
	c       client.Client
	ns      string
}

// hops are the namespaces path m's pods pass through, creator's first.
func (b *Bench) hops(m Mode) []hop {
	switch m {
	case Offloaded:
		return []hop{{"rome", b.romeC, OffloadedNamespace}, {"milan", b.milanC, b.twin}}
	case TwoHops:
		return []hop{{"rome", b.romeC, TwoHopsNamespace}, {"genoa", b.genoaC, b.genoaTwin}, {"milan", b.milanC, b.milanTwinOfTwin}}
	}
	return []hop{{"milan", b.milanC, VanillaNamespace}}
}

// segments reads the Scheduled events of every hop of path m, while the
// sample's pods still exist, and splits their create → Running.
func (b *Bench) segments(ctx context.Context, m Mode, s Sample) ([]Segment, error) {
	hops := b.hops(m)
	stages := []Stage{{Name: "create sent", At: s.Sent}}
	for _, h := range hops {
		at, err := scheduledTimes(ctx, h.c, h.ns)
		if err != nil {
			return nil, fmt.Errorf("cluster %s: %w", h.cluster, err)
		}
		// The namespace also holds the warm-up's and earlier batches' events.
		maps.DeleteFunc(at, func(name string, _ time.Time) bool { _, measured := s.Sent[name]; return !measured })
		stages = append(stages, Stage{Name: "scheduled in " + h.cluster, At: at})
	}
	stages = append(stages, Stage{Name: "Running seen in " + hops[0].cluster, At: s.Running})
	return Segments(stages, slowestNames(s)), nil
}
