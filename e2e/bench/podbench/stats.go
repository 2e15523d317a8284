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

// Package podbench measures how long pods take from creation to Running when
// offloaded through a Spillway virtual node, against the same pods created
// directly in the provider ("vanilla"), in one run on one lab. It is run by
// `make bench` (hack/bench.sh), never in CI.
package podbench

import (
	"math"
	"slices"
	"time"
)

// Sample is what one creator observed for one batch of pods.
type Sample struct {
	// Latencies are create → Running for the pods seen Running, in any order.
	Latencies []time.Duration
	// Unfinished pods were not seen Running before the deadline (or failed to
	// be created); they rank above every latency.
	Unfinished int
	// Wall is from the first create to the last pod seen Running.
	Wall time.Duration
	// Sent and Running are, per pod name, when its create was sent and when
	// it was seen Running: the first and last stage of Segments.
	Sent, Running map[string]time.Time
	// Segments split create → Running at each cluster's scheduling.
	Segments []Segment
	// Load is the machine's and the lab's CPU, second by second, from the
	// first create to the last pod seen Running.
	Load []LoadSample
	// ClosedWatches are the watches the API servers closed over the same
	// span because their client read too slowly, by cluster and resource
	// (Traffic.ClosedWatches).
	ClosedWatches map[string]Counts
}

// Summary is the table row of one Sample.
type Summary struct {
	Pods       int
	Unfinished int
	P50        time.Duration
	P90        time.Duration
	P99        time.Duration
	Max        time.Duration
	Wall       time.Duration
}

// Unknown marks a percentile that falls among unfinished pods.
const Unknown = time.Duration(math.MaxInt64)

// Percentile returns the nearest-rank q-quantile (0 < q ≤ 1) of sorted
// latencies followed by unfinished pods, or Unknown when it falls among the
// unfinished ones. Nearest rank, not interpolation: the value is one a pod
// actually took, and p99 of 100 pods is the slowest but one.
func Percentile(sorted []time.Duration, unfinished int, q float64) time.Duration {
	n := len(sorted) + unfinished
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(q * float64(n)))
	rank = min(max(rank, 1), n)
	if rank > len(sorted) {
		return Unknown
	}
	return sorted[rank-1]
}

// Summarize computes the percentiles of a sample.
func Summarize(s Sample) Summary {
	sorted := slices.Clone(s.Latencies)
	slices.Sort(sorted)
	return Summary{
		Pods:       len(sorted) + s.Unfinished,
		Unfinished: s.Unfinished,
		P50:        Percentile(sorted, s.Unfinished, 0.50),
		P90:        Percentile(sorted, s.Unfinished, 0.90),
		P99:        Percentile(sorted, s.Unfinished, 0.99),
		Max:        Percentile(sorted, s.Unfinished, 1),
		Wall:       s.Wall,
	}
}

// Ratio is offloaded/vanilla, NaN when either side is unknown or vanilla is 0.
func Ratio(offloaded, vanilla time.Duration) float64 {
	if offloaded == Unknown || vanilla == Unknown || vanilla <= 0 {
		return math.NaN()
	}
	return float64(offloaded) / float64(vanilla)
}
