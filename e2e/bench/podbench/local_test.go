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

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// withLocal is result() with the local reference: rome's manager at 150 MiB
// peak and 100 MiB live with its own pods, at 230 and 160 with them
// offloaded.
func withLocal() Result {
	r := result()
	r.KubeletAfter.Peak = 230 * mib
	r.KubeletLiveHeap = LiveHeaps{Idle: 9 * mib, Running: 160 * mib, Deleted: 30 * mib}
	r.Local = &LocalResult{
		KubeletAfter: framework.Memory{Peak: 150 * mib, Current: 140 * mib},
		LiveHeap:     LiveHeaps{Idle: 8 * mib, Running: 100 * mib},
		Sample:       Sample{Latencies: ms100(100)},
	}
	return r
}

func TestPeeringShareIsTheOffloadedBatchLessTheLocalOne(t *testing.T) {
	g := NewWithT(t)
	share, ok := PeeringShare(withLocal())
	g.Expect(ok).To(BeTrue())
	g.Expect(share).To(Equal(MemoryShare{PeakRSS: 80 * mib, LiveHeap: 60 * mib}))

	r := withLocal()
	r.Local.LiveHeap.Running = 170 * mib
	share, _ = PeeringShare(r)
	g.Expect(share.LiveHeap).To(Equal(int64(-10*mib)), "a reference holding more gives a negative share, not a wrapped one")

	_, ok = PeeringShare(result())
	g.Expect(ok).To(BeFalse(), "no reference")
	r = withLocal()
	r.KubeletLiveHeap.Running = 0
	_, ok = PeeringShare(r)
	g.Expect(ok).To(BeFalse(), "the offloaded heap was not read")
}

func TestMemoryShareTableJudgesTarget3(t *testing.T) {
	g := NewWithT(t)
	var b strings.Builder
	g.Expect(WriteMemoryShare(&b, []Result{withLocal()})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	g.Expect(lines).To(HaveLen(5), b.String())
	g.Expect(lines[0]).To(ContainSubstring("target 3: the peering's share ≤ 100 MiB"))
	g.Expect(strings.Fields(lines[2])).To(Equal(strings.Fields("100 in rome, on its own nodes (local) 150 MiB 100 MiB 8 MiB 0")))
	g.Expect(strings.Fields(lines[3])).To(Equal(strings.Fields("100 offloaded to milan 230 MiB 160 MiB 9 MiB 1")))
	g.Expect(strings.Fields(lines[4])).To(Equal(strings.Fields("100 the peering's share (offloaded − local) 80 MiB (met) 60 MiB (met)")))

	r := withLocal()
	r.KubeletAfter.Peak = 251 * mib
	b.Reset()
	g.Expect(WriteMemoryShare(&b, []Result{r})).To(Succeed())
	g.Expect(b.String()).To(ContainSubstring("101 MiB (MISSED)"))

	b.Reset()
	g.Expect(WriteMemoryShare(&b, []Result{result()})).To(Succeed())
	g.Expect(b.String()).To(BeEmpty(), "no batch measured the reference")
}

func TestTheJSONReportCarriesTheLocalReference(t *testing.T) {
	g := NewWithT(t)
	data, err := json.Marshal(Reported(withLocal()))
	g.Expect(err).NotTo(HaveOccurred())
	var got struct {
		Local *struct {
			Manager struct {
				Peak     float64 `json:"peakRSSMiB"`
				LiveHeap float64 `json:"liveHeapMiB"`
			} `json:"manager"`
			ShareRSS  float64 `json:"peeringSharePeakRSSMiB"`
			ShareHeap float64 `json:"peeringShareLiveHeapMiB"`
		} `json:"local"`
	}
	g.Expect(json.Unmarshal(data, &got)).To(Succeed())
	g.Expect(got.Local).NotTo(BeNil())
	g.Expect(got.Local.Manager.Peak).To(Equal(150.0))
	g.Expect(got.Local.Manager.LiveHeap).To(Equal(100.0))
	g.Expect(got.Local.ShareRSS).To(Equal(80.0))
	g.Expect(got.Local.ShareHeap).To(Equal(60.0))

	data, err = json.Marshal(Reported(result()))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(data)).NotTo(ContainSubstring(`"local"`))
}

func TestLocalPodsStayOnTheConsumersOwnNodes(t *testing.T) {
	g := NewWithT(t)
	for _, p := range Pods(Local, "local-3", 3) {
		g.Expect(p.Spec.Tolerations).To(BeEmpty(), "no virtual-node toleration")
		g.Expect(p.Spec.Affinity).To(BeNil(), "no affinity to virtual nodes")
	}
	for _, p := range Pods(Offloaded, "offloaded-3", 3) {
		g.Expect(p.Spec.Affinity).NotTo(BeNil())
	}
}
