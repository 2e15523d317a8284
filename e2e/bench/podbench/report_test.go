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
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/framework"
)

func result() Result {
	return Result{
		Pods:          100,
		Vanilla:       Sample{Latencies: ms100(100), Wall: 2 * time.Second},
		Offloaded:     Sample{Latencies: scaled(ms100(99), 2), Unfinished: 1, Wall: 5 * time.Second},
		KubeletBefore: framework.Memory{Current: 40 * mib}, KubeletAfter: framework.Memory{Peak: 60 * mib, Current: 55 * mib},
		VanillaCPU:   CPU{"milan/kube-apiserver": 2 * time.Second},
		OffloadedCPU: CPU{"milan/kube-apiserver": 3 * time.Second, "rome/spillway-controller": 3 * time.Second},
	}
}

func scaled(ds []time.Duration, k int) []time.Duration {
	for i := range ds {
		ds[i] *= time.Duration(k)
	}
	return ds
}

func TestTableShowsBothPathsTheRatiosAndTheRSS(t *testing.T) {
	g := NewWithT(t)
	var b strings.Builder
	g.Expect(WriteTable(&b, []Result{result()})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	g.Expect(lines).To(HaveLen(4))
	g.Expect(strings.Fields(lines[1])).To(Equal([]string{"100", "vanilla", "50ms", "90ms", "99ms", "100ms", "2s", "0", "2s", "-"}))
	g.Expect(strings.Fields(lines[2])).To(Equal([]string{"100", "offloaded", "100ms", "180ms", "198ms", "unfinished", "5s", "1", "6s", "60", "MiB"}))
	g.Expect(strings.Fields(lines[3])).To(Equal([]string{"100", "offloaded/vanilla", "2×", "2×", "2×", "n/a", "2.5×", "3×"}))
}

func TestCPUTableHasOneRowPerProcess(t *testing.T) {
	g := NewWithT(t)
	var b strings.Builder
	g.Expect(WriteCPUTable(&b, []Result{result()})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	g.Expect(lines).To(HaveLen(3))
	g.Expect(strings.Fields(lines[1])).To(Equal([]string{"milan/kube-apiserver", "2.0", "3.0"}))
	g.Expect(strings.Fields(lines[2])).To(Equal([]string{"rome/spillway-controller", "0.0", "3.0"}))
}

func TestJSONReportsMillisecondsAndNullForUnfinished(t *testing.T) {
	g := NewWithT(t)
	data, err := json.Marshal(Reported(result()))
	g.Expect(err).NotTo(HaveOccurred())
	var got map[string]any
	g.Expect(json.Unmarshal(data, &got)).To(Succeed())
	g.Expect(got).To(HaveKeyWithValue("pods", 100.0))
	off := got["offloaded"].(map[string]any)
	g.Expect(off).To(HaveKeyWithValue("p99Ms", 198.0))
	g.Expect(off).To(HaveKeyWithValue("maxMs", BeNil()))
	g.Expect(off["latenciesMs"]).To(HaveLen(99))
	g.Expect(got["ratios"]).To(HaveKeyWithValue("p50", 2.0))
	g.Expect(got["ratios"]).To(HaveKeyWithValue("max", BeNil()))
	g.Expect(got["virtualKubelet"]).To(HaveKeyWithValue("peakRSSMiB", 60.0))
	g.Expect(got["cpuSeconds"]).To(HaveKeyWithValue("offloaded", HaveKeyWithValue("rome/spillway-controller", 3.0)))
}

func TestPlotIsWellFormedSVGWithOneCurvePerPathAndBatch(t *testing.T) {
	g := NewWithT(t)
	r2 := result()
	r2.Pods = 1000
	svg := PlotCDF([]Result{result(), r2})
	dec := xml.NewDecoder(strings.NewReader(svg))
	polylines := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		g.Expect(err).NotTo(HaveOccurred())
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			polylines++
		}
	}
	g.Expect(polylines).To(Equal(4))
	g.Expect(svg).To(ContainSubstring("1000 pods"))
	g.Expect(svg).To(ContainSubstring("offloaded  p99 198ms"))
}

func TestNiceCeil(t *testing.T) {
	g := NewWithT(t)
	for in, want := range map[float64]float64{0: 1, 0.3: 0.4, 1: 1, 1.2: 2, 3: 4, 4.5: 5, 7: 10, 230: 400} {
		g.Expect(niceCeil(in)).To(BeNumerically("~", want, 1e-9), "niceCeil(%g)", in)
	}
}

func TestHeapAllocIsReadFromTheTextHeapProfile(t *testing.T) {
	g := NewWithT(t)
	text := []byte("heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1 0x2\n\n# runtime.MemStats\n# Alloc = 123\n# TotalAlloc = 456\n# HeapAlloc = 78123456\n# HeapSys = 99999999\n")
	got, err := heapAlloc(text)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(uint64(78123456)))

	_, err = heapAlloc([]byte("\x1f\x8b binary profile"))
	g.Expect(err).To(MatchError(ContainSubstring("debug=1")))
}

func TestTheTableShowsTheLiveHeapWhereItWasRead(t *testing.T) {
	g := NewWithT(t)
	after := framework.Memory{Peak: 200 * mib}
	g.Expect(kubeletMemory(after, LiveHeaps{})).To(Equal("200 MiB"))
	g.Expect(kubeletMemory(after, LiveHeaps{Running: 75 * mib})).To(Equal("200 MiB (live heap 75 MiB)"))
	g.Expect(kubeletMemory(after, LiveHeaps{Idle: 30 * mib, Running: 75 * mib, Deleted: 31 * mib})).
		To(Equal("200 MiB (live heap 75 MiB; idle 30, after deletion 31)"))
}
