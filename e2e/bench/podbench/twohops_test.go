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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// withTwoHops is result() with a two-hop batch three times vanilla's latency.
func withTwoHops() Result {
	r := result()
	r.TwoHops = &TwoHopsResult{
		Sample:       Sample{Latencies: scaled(ms100(100), 3), Wall: 8 * time.Second},
		CPU:          CPU{"milan/kube-apiserver": 3 * time.Second, "genoa/spillway-controller": 4 * time.Second, "rome/spillway-controller": 2 * time.Second},
		KubeletAfter: framework.Memory{Peak: 70 * mib},
	}
	r.VanillaCPU["genoa/spillway-controller"] = time.Second
	return r
}

func TestTableAddsTwoHopsAndItsRatiosToVanillaAndOneHop(t *testing.T) {
	g := NewWithT(t)
	var b strings.Builder
	g.Expect(WriteTable(&b, []Result{withTwoHops()})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	g.Expect(lines).To(HaveLen(7))
	g.Expect(strings.Fields(lines[1])).To(Equal([]string{"100", "vanilla", "50ms", "90ms", "99ms", "100ms", "2s", "0", "3s", "-"}))
	g.Expect(strings.Fields(lines[3])).To(Equal([]string{"100", "two", "hops", "150ms", "270ms", "297ms", "300ms", "8s", "0", "9s", "70", "MiB"}))
	g.Expect(strings.Fields(lines[4])[1]).To(Equal("offloaded/vanilla"))
	g.Expect(strings.Fields(lines[5])).To(Equal([]string{"100", "two", "hops/vanilla", "3×", "3×", "3×", "3×", "4×", "3×"}))
	g.Expect(strings.Fields(lines[6])).To(Equal([]string{"100", "two", "hops/offloaded", "1.5×", "1.5×", "1.5×", "n/a", "1.6×", "1.5×"}))
}

func TestCPUTableHasAColumnPerPathAndTheBrokersProcesses(t *testing.T) {
	g := NewWithT(t)
	var b strings.Builder
	g.Expect(WriteCPUTable(&b, []Result{withTwoHops()})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	g.Expect(lines).To(HaveLen(4))
	g.Expect(strings.Fields(lines[0])).To(Equal([]string{"CPU", "seconds", "100", "vanilla", "100", "offloaded", "100", "two-hops"}))
	g.Expect(strings.Fields(lines[1])).To(Equal([]string{"genoa/spillway-controller", "1.0", "0.0", "4.0"}))
	g.Expect(strings.Fields(lines[3])).To(Equal([]string{"rome/spillway-controller", "0.0", "3.0", "2.0"}))
}

func TestJSONHasTwoHopsOnlyWhenMeasured(t *testing.T) {
	g := NewWithT(t)
	var got map[string]any
	data, err := json.Marshal(Reported(withTwoHops()))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(data, &got)).To(Succeed())
	g.Expect(got["twoHops"]).To(HaveKeyWithValue("p50Ms", 150.0))
	g.Expect(got["twoHopsRatios"]).To(HaveKeyWithValue("p50", 3.0))
	g.Expect(got["twoHopsVsOneHop"]).To(HaveKeyWithValue("p50", 1.5))
	g.Expect(got["twoHopsVirtualKubelet"]).To(HaveKeyWithValue("peakRSSMiB", 70.0))
	g.Expect(got["cpuSeconds"]).To(HaveKeyWithValue("two-hops", HaveKeyWithValue("genoa/spillway-controller", 4.0)))

	got = nil
	data, err = json.Marshal(Reported(result()))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(json.Unmarshal(data, &got)).To(Succeed())
	g.Expect(got).NotTo(HaveKey("twoHops"))
	g.Expect(got).NotTo(HaveKey("twoHopsVirtualKubelet"))
	g.Expect(got["cpuSeconds"]).NotTo(HaveKey("two-hops"))
}

func TestPlotDrawsTheTwoHopCurve(t *testing.T) {
	g := NewWithT(t)
	svg := PlotCDF([]Result{withTwoHops()})
	g.Expect(strings.Count(svg, "<polyline")).To(Equal(3))
	g.Expect(svg).To(ContainSubstring("two-hops  p99 297ms"))
	g.Expect(svg).To(ContainSubstring(colour[TwoHops]))
}

func TestTrafficCountsTwoHopWritesInEachCluster(t *testing.T) {
	g := NewWithT(t)
	r := Result{Pods: 10,
		VanillaTraffic:   Traffic{APIServer: map[string]Requests{"milan": {{"POST", "pods", ""}: 10}}},
		OffloadedTraffic: Traffic{APIServer: map[string]Requests{"milan": {{"POST", "pods", ""}: 20}, "rome": {{"POST", "pods", ""}: 10}}},
		TwoHops: &TwoHopsResult{Traffic: Traffic{APIServer: map[string]Requests{
			"milan": {{"POST", "pods", ""}: 20},
			"genoa": {{"POST", "pods", ""}: 10, {"POST", "shadowpods.virtualkubelet.liqo.io", ""}: 10, {"PUT", "leases.coordination.k8s.io", ""}: 99},
			"rome":  {{"POST", "pods", ""}: 10, {"LIST", "pods", ""}: 5},
		}}},
	}
	s := SummarizeTraffic(r)
	g.Expect(s.TwoHops).To(Equal(&TwoHopsWrites{ProviderWrites: 2, BrokerWrites: 2, ConsumerWrites: 1}))
	var out strings.Builder
	g.Expect(WriteTrafficTable(&out, r)).To(Succeed())
	g.Expect(out.String()).To(ContainSubstring("two hops: 2.00 in milan, 2.00 in genoa (the broker), 1.00 in rome; 5.00 in all three against one hop's 3.00"))
	g.Expect(out.String()).To(MatchRegexp(`genoa\s+POST\s+shadowpods.virtualkubelet.liqo.io\s+0.00\s+0.00\s+1.00`))
	g.Expect(SummarizeTraffic(Result{Pods: 1}).TwoHops).To(BeNil())
}
