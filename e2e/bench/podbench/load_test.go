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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

const procStat = `cpu  100 20 30 400 50 6 4 0 0 0
cpu0 50 10 15 200 25 3 2 0 0 0
cpu1 50 10 15 200 25 3 2 0 0 0
intr 12345
`

func TestParseMachineStatCountsIdleAndIowaitAsNotBusy(t *testing.T) {
	g := NewWithT(t)
	busy, total, err := ParseMachineStat(procStat)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(busy).To(Equal(uint64(100 + 20 + 30 + 6 + 4)))
	g.Expect(total).To(Equal(uint64(610)))
}

func TestParseMachineStatNamesWhatIsWrong(t *testing.T) {
	g := NewWithT(t)
	_, _, err := ParseMachineStat("cpu0 1 2 3 4 5 6 7 8\n")
	g.Expect(err).To(MatchError(ContainSubstring("no summed cpu line")))
	_, _, err = ParseMachineStat("cpu 1 2 3\n")
	g.Expect(err).To(MatchError(ContainSubstring("3 fields")))
	_, _, err = ParseMachineStat("cpu 1 2 x 4 5 6 7 8\n")
	g.Expect(err).To(MatchError(ContainSubstring(`counter 3 "x"`)))
}

func TestLoadSampleIsTheShareBusyAndTheLabsCores(t *testing.T) {
	g := NewWithT(t)
	at := time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)
	s := loadSample(at, 2*time.Second, machineTimes{busy: 100, total: 400}, machineTimes{busy: 490, total: 800},
		CPU{"rome/kube-apiserver": time.Second, "milan/etcd": 0}, CPU{"rome/kube-apiserver": 2500 * time.Millisecond, "milan/etcd": 500 * time.Millisecond})
	g.Expect(s.At).To(Equal(at))
	g.Expect(s.MachineBusy).To(BeNumerically("~", 0.975, 1e-9))
	g.Expect(s.LabCores).To(BeNumerically("~", 1.0, 1e-9), "2 s of the lab's CPU over 2 s")
}

func TestSummarizeLoadCountsTheSecondsInTheWindowOnly(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 11, 28, 22, 0, 0, 0, time.UTC)
	var samples []LoadSample
	for i, busy := range []float64{0.5, 0.96, 0.98, 0.6, 1} {
		samples = append(samples, LoadSample{At: t0.Add(time.Duration(i) * time.Second), MachineBusy: busy, LabCores: 2 * busy})
	}
	got := SummarizeLoad(samples, t0.Add(time.Second), t0.Add(4*time.Second))
	g.Expect(got.Seconds).To(Equal(3))
	g.Expect(got.Saturated).To(Equal(2))
	g.Expect(got.MachineBusy).To(BeNumerically("~", (0.96+0.98+0.6)/3, 1e-9))
	g.Expect(got.LabCores).To(BeNumerically("~", 2*(0.96+0.98+0.6)/3, 1e-9))
	g.Expect(batchLoad(Sample{Load: samples}).Seconds).To(Equal(5))
}

func TestSlowWindowsCarryTheirLoad(t *testing.T) {
	g := NewWithT(t)
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	s := Sample{Sent: map[string]time.Time{"a": start, "b": start.Add(15 * time.Second)}}
	s.Running = map[string]time.Time{"a": start.Add(10 * time.Millisecond), "b": start.Add(17 * time.Second)}
	for i := range 20 {
		busy := 0.4
		if i >= 10 {
			busy = 1
		}
		s.Load = append(s.Load, LoadSample{At: start.Add(time.Duration(i) * time.Second), MachineBusy: busy, LabCores: busy})
	}
	got := SlowWindows(s, 10*time.Second)
	g.Expect(got).To(HaveLen(1), "one pod of two is the slowest 1 %")
	g.Expect(got[0].Start).To(Equal(start.Add(10 * time.Second)))
	g.Expect(got[0].MachineBusy).To(Equal(1.0))
}

// The printed windows say how busy the machine was in each, and the batch
// how many seconds it was saturated; a sample without load says nothing of it.
func TestWriteSlowWindowsPrintsTheLoad(t *testing.T) {
	g := NewWithT(t)
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	s := Sample{Sent: map[string]time.Time{"a": start}, Running: map[string]time.Time{"a": start.Add(2 * time.Second)}, Wall: 2 * time.Second}
	for i, busy := range []float64{0.97, 0.99, 0.5} {
		s.Load = append(s.Load, LoadSample{At: start.Add(time.Duration(i) * time.Second), MachineBusy: busy, LabCores: 1.5})
	}
	r := Result{Pods: 1, Offloaded: s, Vanilla: Sample{Sent: s.Sent, Running: s.Running, Wall: s.Wall}}
	var b strings.Builder
	WriteSlowWindows(&b, []Result{r})
	g.Expect(b.String()).To(ContainSubstring("1 offloaded: 1 windows of 1: 0s (08:00:00, machine 82 % busy) 1 pods (max 2s);"))
	g.Expect(b.String()).To(ContainSubstring("the whole batch: machine 82 % busy, saturated (≥ 95 %) 2 of 3 s; lab 1.50 cores"))
	g.Expect(b.String()).To(ContainSubstring("1 vanilla: 1 windows of 1: 0s (08:00:00) 1 pods (max 2s);"))
	g.Expect(strings.Count(b.String(), "the whole batch")).To(Equal(1))
}

// With load sampled, the plot doubles in height and draws one busy curve
// per sampled path under the CDFs; without, it stays one row.
func TestPlotAddsALoadRowWhenTheLoadWasSampled(t *testing.T) {
	g := NewWithT(t)
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	r := Result{Pods: 3}
	r.Vanilla.Latencies = []time.Duration{time.Second}
	r.Offloaded.Latencies = []time.Duration{2 * time.Second}
	g.Expect(PlotCDF([]Result{r})).NotTo(ContainSubstring("the machine's CPU busy"))
	g.Expect(PlotCDF([]Result{r})).To(ContainSubstring(`height="320"`))
	for i, busy := range []float64{0.5, 0.97, 0.99} {
		r.Offloaded.Load = append(r.Offloaded.Load, LoadSample{At: start.Add(time.Duration(i) * time.Second), MachineBusy: busy})
	}
	svg := PlotCDF([]Result{r})
	g.Expect(svg).To(ContainSubstring(`height="640"`))
	g.Expect(svg).To(ContainSubstring("3 pods: the machine's CPU busy, second by second"))
	g.Expect(svg).To(ContainSubstring("offloaded  82 % busy, saturated 2 of 3 s"))
	g.Expect(svg).NotTo(ContainSubstring("vanilla  0 % busy"), "a path without samples draws no curve")
	g.Expect(strings.Count(svg, "<polyline")).To(Equal(3), "two CDFs and one busy curve")
}

// The sampler reads this machine: every sample is a share of it, and with
// no cluster the lab used nothing.
func TestSampleLoadReadsThisMachine(t *testing.T) {
	g := NewWithT(t)
	l := sampleLoad(context.Background(), 10*time.Millisecond)
	g.Eventually(l.taken).WithTimeout(5 * time.Second).WithPolling(5 * time.Millisecond).Should(BeNumerically(">=", 3))
	samples := l.finish()
	g.Expect(len(samples)).To(BeNumerically(">=", 3))
	for i, s := range samples {
		g.Expect(s.MachineBusy).To(And(BeNumerically(">=", 0), BeNumerically("<=", 1)))
		g.Expect(s.LabCores).To(BeZero())
		if i > 0 {
			g.Expect(s.At).To(BeTemporally(">", samples[i-1].At))
		}
	}
}
