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
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// SlowWindow is a stretch of a batch's creation and how many of its
// slowest pods were sent in it.
type SlowWindow struct {
	// FromMs is the window's start, from the batch's first create.
	FromMs int64 `json:"fromMs"`
	// Start is the window's start on the wall clock, to find it in the
	// lab's logs (etcd's slow applies, the API servers' traces).
	Start time.Time `json:"start"`
	Pods  int       `json:"pods"`
	// MaxMs is the slowest of them, create → Running.
	MaxMs int64 `json:"maxMs"`
	// MachineBusy and LabCores are their means over the window (Sample.Load):
	// whether the tail is the machine saturated or a stall of one process.
	MachineBusy float64 `json:"machineBusy"`
	LabCores    float64 `json:"labCores"`
}

// slowPod is one of a sample's slowest pods.
type slowPod struct {
	name    string
	sent    time.Time
	latency time.Duration
}

// slowestPods are the slowest 1 % of the pods seen Running (create →
// Running; at least one), slowest first, and the batch's first create.
func slowestPods(s Sample) ([]slowPod, time.Time) {
	var pods []slowPod
	var first time.Time
	for name, sent := range s.Sent {
		if first.IsZero() || sent.Before(first) {
			first = sent
		}
		if running, ok := s.Running[name]; ok {
			pods = append(pods, slowPod{name, sent, running.Sub(sent)})
		}
	}
	if len(pods) == 0 {
		return nil, first
	}
	slices.SortFunc(pods, func(a, b slowPod) int { return int(b.latency - a.latency) })
	return pods[:max(1, len(pods)/100)], first
}

// SlowWindows places the slowest 1 % of the pods by when their create was
// sent, in windows of width: whether the tail is bursts at a period (a
// resync pass, a garbage collection) or spread over the batch. Issue 17's
// p99 at 10,000 pods sits in a tail the table's percentiles cannot place in
// time. Windows are in time order.
func SlowWindows(s Sample, width time.Duration) []SlowWindow {
	pods, first := slowestPods(s)
	if len(pods) == 0 || width <= 0 {
		return nil
	}
	byWindow := map[int64]*SlowWindow{}
	for _, p := range pods {
		offset := p.sent.Sub(first) / width * width
		w := byWindow[offset.Milliseconds()]
		if w == nil {
			w = &SlowWindow{FromMs: offset.Milliseconds(), Start: first.Add(offset).UTC()}
			byWindow[offset.Milliseconds()] = w
		}
		w.Pods++
		w.MaxMs = max(w.MaxMs, p.latency.Milliseconds())
	}
	out := make([]SlowWindow, 0, len(byWindow))
	for _, w := range byWindow {
		load := SummarizeLoad(s.Load, w.Start, w.Start.Add(width))
		w.MachineBusy, w.LabCores = load.MachineBusy, load.LabCores
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b SlowWindow) int { return int(a.FromMs - b.FromMs) })
	return out
}

// batchLoad summarizes the load over the whole sample.
func batchLoad(s Sample) LoadSummary {
	if len(s.Load) == 0 {
		return LoadSummary{}
	}
	return SummarizeLoad(s.Load, s.Load[0].At, s.Load[len(s.Load)-1].At.Add(time.Nanosecond))
}

// slowestNames are the names of the slowest 1 % (slowestPods).
func slowestNames(s Sample) map[string]bool {
	pods, _ := slowestPods(s)
	out := make(map[string]bool, len(pods))
	for _, p := range pods {
		out[p.name] = true
	}
	return out
}

// slowWindowWidth is the resync's interval: a tail the pass causes lands
// in every window alike, one caused by something rarer does not.
const slowWindowWidth = 10 * time.Second

// WriteSlowWindows prints, per batch and path, the windows of creation
// the slowest 1 % of pods were sent in, the fullest first.
func WriteSlowWindows(w io.Writer, results []Result) {
	fmt.Fprintf(w, "The slowest 1 %% (create → Running) by when their create was sent, in %s windows, the fullest first\n", slowWindowWidth)
	for _, r := range results {
		for _, m := range r.Modes() {
			s := r.Sample(m)
			windows := SlowWindows(s, slowWindowWidth)
			slices.SortStableFunc(windows, func(a, b SlowWindow) int { return b.Pods - a.Pods })
			fmt.Fprintf(w, "  %d %s: %d windows of %d:", r.Pods, m, len(windows), int(s.Wall/slowWindowWidth)+1)
			for _, win := range windows[:min(len(windows), 12)] {
				busy := ""
				if len(s.Load) > 0 {
					busy = fmt.Sprintf(", machine %.0f %% busy", 100*win.MachineBusy)
				}
				fmt.Fprintf(w, " %ds (%s%s) %d pods (max %s);", win.FromMs/1000, win.Start.Format(time.TimeOnly), busy,
					win.Pods, time.Duration(win.MaxMs)*time.Millisecond)
			}
			fmt.Fprintln(w)
			if load := batchLoad(s); load.Seconds > 0 {
				fmt.Fprintf(w, "    the whole batch: machine %.0f %% busy, saturated (≥ %.0f %%) %d of %d s; lab %.2f cores\n",
					100*load.MachineBusy, 100*busyThreshold, load.Saturated, load.Seconds, load.LabCores)
			}
			if closed := closedWatchesText(s.ClosedWatches); closed != "" {
				fmt.Fprintf(w, "    watches the API servers closed as too slow to read: %s (each client watched again; the API server's log names it)\n", closed)
			}
		}
	}
}

// closedWatchesText lists closed watches as "milan pods 42, rome events 1",
// by cluster then resource; empty when there were none.
func closedWatchesText(closed map[string]Counts) string {
	var parts []string
	for _, cluster := range slices.Sorted(maps.Keys(closed)) {
		for _, res := range slices.Sorted(maps.Keys(closed[cluster])) {
			parts = append(parts, fmt.Sprintf("%s %s %.0f", cluster, res, closed[cluster][res]))
		}
	}
	return strings.Join(parts, ", ")
}
