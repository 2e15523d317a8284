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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// floorResult is a batch of 1,000 pods whose paths spend: vanilla, milan's
// control plane 10 s, rome's idle 1 s, the managers 0.5 s; local, rome's
// control plane 9 s; offloaded, milan's 14 s, rome's 8 s, the managers 4 s,
// the peer link 1 s.
func floorResult() Result {
	s := time.Second
	return Result{
		Pods: 1000,
		VanillaCPU: CPU{"milan/kube-apiserver": 6 * s, "milan/etcd": 2 * s, "milan/kwok": 2 * s,
			"rome/kube-apiserver": s, "milan/spillway-controller": s / 4, "rome/spillway-controller": s / 4},
		Local: &LocalResult{CPU: CPU{"rome/kube-apiserver": 5 * s, "rome/kube-scheduler": 2 * s, "rome/kube-controller-manager": s,
			"rome/kwok": s, "milan/kube-apiserver": s, "rome/spillway-controller": 2 * s}},
		OffloadedCPU: CPU{"milan/kube-apiserver": 10 * s, "milan/etcd": 2 * s, "milan/kwok": 2 * s,
			"rome/kube-apiserver": 7 * s, "rome/etcd": s, "milan/spillway-controller": 2 * s, "rome/spillway-controller": 2 * s,
			"milan/peer-link": s},
	}
}

func TestTheFloorIsMilansControlPlaneInVanillaAndRomesInLocal(t *testing.T) {
	g := NewWithT(t)
	s, ok := SplitFloor(floorResult())
	g.Expect(ok).To(BeTrue())
	g.Expect(s.Provider).To(Equal([2]time.Duration{10 * time.Second, 14 * time.Second}))
	// rome's idle control plane in vanilla and milan's in local are not the floor's.
	g.Expect(s.Consumer).To(Equal([2]time.Duration{9 * time.Second, 8 * time.Second}))
	// The managers as vanilla has them; the peer link is not a control plane.
	g.Expect(s.Rest).To(Equal([2]time.Duration{500 * time.Millisecond, 5 * time.Second}))
	g.Expect(s.Floor()).To(Equal(19500 * time.Millisecond))
	g.Expect(s.Offloaded()).To(Equal(27 * time.Second))
	g.Expect(s.Vanilla).To(Equal(11500 * time.Millisecond))
}

func TestTheFloorNeedsTheLocalBatch(t *testing.T) {
	g := NewWithT(t)
	r := floorResult()
	r.Local = nil
	_, ok := SplitFloor(r)
	g.Expect(ok).To(BeFalse())
	var b strings.Builder
	g.Expect(WriteFloorTable(&b, []Result{r})).To(Succeed())
	g.Expect(b.String()).To(BeEmpty())
	g.Expect(reportedFloor(r)).To(BeNil())
}

func TestTheFloorTableSaysWhatTarget1LeavesSpillwayAndWhatItUsed(t *testing.T) {
	g := NewWithT(t)
	var b strings.Builder
	g.Expect(WriteFloorTable(&b, []Result{floorResult()})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	g.Expect(lines).To(HaveLen(8))
	g.Expect(strings.Fields(lines[2])).To(Equal([]string{"1000", "milan's", "control", "plane", "10s", "14s", "+4s"}))
	g.Expect(strings.Fields(lines[3])).To(Equal([]string{"1000", "rome's", "control", "plane", "9s", "8s", "-1s"}))
	g.Expect(strings.Fields(lines[5])).To(Equal([]string{"1000", "total", "19.5s", "27s", "+7.5s"}))
	g.Expect(strings.Fields(lines[6])).To(Equal([]string{"1000", "÷", "vanilla", "(11.5s)", "1.7×", "2.35×"}))
	// 2.3 × 11.5 s = 26.45 s, less the floor's 19.5 s: 6.95 ms a pod left, 7.5 used.
	g.Expect(lines[7]).To(MatchRegexp(`leaves +6\.95 ms +used +7\.50 ms`))
	rf := reportedFloor(floorResult())
	g.Expect(rf.ConsumerSeconds).To(Equal([2]float64{9, 8}))
	g.Expect(rf.FloorRatio).To(BeNumerically("~", 19.5/11.5, 1e-9))
}
