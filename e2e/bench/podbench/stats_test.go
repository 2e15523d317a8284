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
	"math"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func ms100(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		// Reverse order: Summarize must sort.
		out[i] = time.Duration(n-i) * time.Millisecond
	}
	return out
}

func TestPercentilesAreNearestRank(t *testing.T) {
	g := NewWithT(t)
	s := Summarize(Sample{Latencies: ms100(100), Wall: 3 * time.Second})
	g.Expect(s.Pods).To(Equal(100))
	g.Expect(s.P50).To(Equal(50 * time.Millisecond))
	g.Expect(s.P90).To(Equal(90 * time.Millisecond))
	g.Expect(s.P99).To(Equal(99 * time.Millisecond))
	g.Expect(s.Max).To(Equal(100 * time.Millisecond))
	g.Expect(s.Wall).To(Equal(3 * time.Second))
}

func TestUnfinishedPodsRankAboveEveryLatency(t *testing.T) {
	g := NewWithT(t)
	s := Summarize(Sample{Latencies: ms100(98), Unfinished: 2})
	g.Expect(s.Pods).To(Equal(100))
	g.Expect(s.P90).To(Equal(90 * time.Millisecond))
	g.Expect(s.P99).To(Equal(Unknown), "the 99th pod never ran")
	g.Expect(s.Max).To(Equal(Unknown))
}

func TestPercentileOfOnePod(t *testing.T) {
	g := NewWithT(t)
	g.Expect(Percentile([]time.Duration{time.Second}, 0, 0.5)).To(Equal(time.Second))
	g.Expect(Percentile(nil, 0, 0.99)).To(Equal(time.Duration(0)))
}

func TestRatioIsUndefinedWhenASideDidNotFinish(t *testing.T) {
	g := NewWithT(t)
	g.Expect(Ratio(3*time.Second, 2*time.Second)).To(BeNumerically("~", 1.5, 1e-9))
	g.Expect(math.IsNaN(Ratio(Unknown, time.Second))).To(BeTrue())
	g.Expect(math.IsNaN(Ratio(time.Second, Unknown))).To(BeTrue())
	g.Expect(math.IsNaN(Ratio(time.Second, 0))).To(BeTrue())
}
