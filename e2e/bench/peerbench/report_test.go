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

package peerbench

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
	"github.com/spillway-dev/spillway/e2e/framework"
)

// step has peers peerings with 300 + 10·peers goroutines and 40 + peers/2 MiB.
func step(peers, added int, latencies []time.Duration, unfinished int) Step {
	return Step{Peers: peers, Added: added,
		Ready: podbench.Sample{Latencies: latencies, Unfinished: unfinished, Wall: 3 * time.Second},
		State: State{Settled: true, Footprint: framework.Footprint{Goroutines: 300 + 10*peers, RSSKB: 40*1024 + peers*512, HeapInuseKB: 20 * 1024,
			Sessions: peers + 1, Workers: 4 * (peers + 1)}, IdleCPU: map[string]float64{RomeManager: 0.01 * float64(peers)}},
		CPU: podbench.CPU{RomeManager: 2 * time.Second, RomeAPIServer: time.Second, MilanAPI: 500 * time.Millisecond}}
}

func secondsList(ss ...float64) []time.Duration {
	out := make([]time.Duration, 0, len(ss))
	for _, s := range ss {
		out = append(out, time.Duration(s*float64(time.Second)))
	}
	return out
}

func lines(s string) []string { return strings.Split(strings.TrimSpace(s), "\n") }

func TestWriteTableRanksLatenciesAndCountsUnfinished(t *testing.T) {
	g := NewWithT(t)
	steps := []Step{
		step(1, 1, secondsList(1.5), 0),
		// Nine of ten Ready: p50 is the fifth fastest, p99 falls on the unfinished one.
		step(10, 9, secondsList(9, 1, 8, 2, 7, 3, 6, 4, 5), 1),
	}
	var b strings.Builder
	g.Expect(WriteTable(&b, State{Settled: true, Footprint: framework.Footprint{Goroutines: 290, RSSKB: 40 * 1024}}, steps,
		&Teardown{Peers: 10, Wall: 4 * time.Second, State: State{Footprint: framework.Footprint{Goroutines: 291}}})).To(Succeed())
	rows := lines(b.String())
	g.Expect(rows).To(HaveLen(5))
	g.Expect(strings.Fields(rows[1])).To(HaveExactElements("0", "(before)", "-", "-", "-", "-", "-", "-", "290", "40.0", "MiB", "0.0", "MiB", "0", "0", "yes"))
	g.Expect(strings.Fields(rows[2])[:8]).To(HaveExactElements("1", "1", "1.5s", "1.5s", "1.5s", "3s", "0", "310"))
	g.Expect(strings.Fields(rows[3])[:8]).To(HaveExactElements("10", "9", "5s", "unfinished", "unfinished", "3s", "1", "400"))
	g.Expect(strings.Fields(rows[4])).To(ContainElements("(after", "10)", "4s", "291", "no"))
}

func TestWriteSlopesFitsAndShowsTheMeasuredHundred(t *testing.T) {
	g := NewWithT(t)
	steps := []Step{step(1, 1, nil, 0), step(10, 9, nil, 0), step(100, 90, nil, 0)}
	var b strings.Builder
	g.Expect(WriteSlopes(&b, steps)).To(Succeed())
	out := b.String()
	g.Expect(out).To(ContainSubstring("least squares over 1, 10, 100 peerings"))
	g.Expect(out).To(MatchRegexp(`goroutines\s+\+10\.00\s+300\.0\s+1300\.0\s+1300\.0`))
	g.Expect(out).To(MatchRegexp(`VmRSS\s+\+0\.50 MiB\s+40\.0 MiB\s+90\.0 MiB\s+90\.0 MiB`))
	g.Expect(out).To(MatchRegexp(`manager CPU settled\s+\+1\.00 % core`))

	b.Reset()
	g.Expect(WriteSlopes(&b, steps[:2])).To(Succeed())
	g.Expect(b.String()).To(MatchRegexp(`goroutines\s+\+10\.00\s+300\.0\s+1300\.0\s+-`), "no step had 100 peerings: fitted only")

	b.Reset()
	g.Expect(WriteSlopes(&b, steps[:1])).To(Succeed())
	g.Expect(b.String()).To(ContainSubstring("no slope"))
}

func TestReportedIsValidJSONWithUnfinishedAsNull(t *testing.T) {
	g := NewWithT(t)
	r := Reported(step(2, 2, secondsList(0.25), 1))
	data, err := json.Marshal(r)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(data)).To(ContainSubstring(`"p50Ms":250`))
	g.Expect(string(data)).To(ContainSubstring(`"p99Ms":null`))
	g.Expect(r.CPUSeconds[RomeManager]).To(Equal(2.0))
}

func TestStableCountsAllowsOnePercent(t *testing.T) {
	g := NewWithT(t)
	g.Expect(stableCounts([]int{300, 302, 301})).To(BeTrue())
	g.Expect(stableCounts([]int{300, 304})).To(BeFalse())
	g.Expect(stableCounts([]int{2000, 2019, 2010})).To(BeTrue())
	g.Expect(stableCounts([]int{2000, 2022})).To(BeFalse())
	g.Expect(stableCounts(nil)).To(BeFalse())
}
