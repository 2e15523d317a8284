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
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// 200 pods sent 100 ms apart, each Running 10 ms later, but for two sent in
// the window from 10 s: the slowest 1 % are those two, placed in that window.
func TestSlowWindowsPlaceTheTailInTime(t *testing.T) {
	g := NewWithT(t)
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	s := Sample{Sent: map[string]time.Time{}, Running: map[string]time.Time{}}
	for i := range 200 {
		name := fmt.Sprintf("p-%03d", i)
		sent := start.Add(time.Duration(i) * 100 * time.Millisecond)
		latency := 10 * time.Millisecond
		if i == 105 || i == 107 {
			latency = 900 * time.Millisecond
		}
		s.Sent[name], s.Running[name] = sent, sent.Add(latency)
		s.Latencies = append(s.Latencies, latency)
	}
	g.Expect(SlowWindows(s, 10*time.Second)).To(Equal([]SlowWindow{{FromMs: 10000, Start: start.Add(10 * time.Second), Pods: 2, MaxMs: 900}}))
	g.Expect(slowestNames(s)).To(Equal(map[string]bool{"p-105": true, "p-107": true}))
}

// A batch whose API server closed watches says so under its slow windows;
// one without says nothing of it.
func TestWriteSlowWindowsNamesTheWatchesClosed(t *testing.T) {
	g := NewWithT(t)
	start := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	s := Sample{Sent: map[string]time.Time{"p": start}, Running: map[string]time.Time{"p": start.Add(time.Second)}, Latencies: []time.Duration{time.Second}}
	s.ClosedWatches = map[string]Counts{"milan": {"pods": 42}}
	var out strings.Builder
	WriteSlowWindows(&out, []Result{{Pods: 1, Vanilla: s, Offloaded: Sample{Sent: s.Sent, Running: s.Running, Latencies: s.Latencies}}})
	g.Expect(out.String()).To(ContainSubstring("closed as too slow to read: milan pods 42 ("))
	g.Expect(strings.Count(out.String(), "closed as too slow")).To(Equal(1), "the offloaded batch closed none")
}
