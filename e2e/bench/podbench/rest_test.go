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

func TestRestCPUIsPerSecondOfTheMeasuredWindow(t *testing.T) {
	g := NewWithT(t)
	r := RestCPU{CPU: CPU{"rome/spillway-controller": 3 * time.Second, "milan/kube-apiserver": 1500 * time.Millisecond}, Window: 30 * time.Second}
	g.Expect(r.MillisPerSecond("rome/spillway-controller")).To(BeNumerically("~", 100, 1e-9))
	g.Expect(r.MillisPerSecond("milan/kube-apiserver")).To(BeNumerically("~", 50, 1e-9))
	g.Expect(r.TotalMillisPerSecond()).To(BeNumerically("~", 150, 1e-9))
	g.Expect(RestCPU{CPU: r.CPU}.TotalMillisPerSecond()).To(BeZero(), "an empty window measures nothing")
}

func TestRestTableHasAColumnPerPathThatMeasuredOne(t *testing.T) {
	g := NewWithT(t)
	var none strings.Builder
	g.Expect(WriteRestTable(&none, []Result{{Pods: 10}})).To(Succeed())
	g.Expect(none.String()).To(BeEmpty())

	r := Result{Pods: 1000}
	r.recordRest(Vanilla, &RestCPU{CPU: CPU{"milan/kube-apiserver": time.Second}, Window: 10 * time.Second})
	r.recordRest(Offloaded, &RestCPU{CPU: CPU{"milan/kube-apiserver": 2 * time.Second, "rome/spillway-controller": 4 * time.Second}, Window: 10 * time.Second})
	r.recordRest(TwoHops, nil)
	var out strings.Builder
	g.Expect(WriteRestTable(&out, []Result{r})).To(Succeed())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	g.Expect(lines).To(HaveLen(4))
	g.Expect(strings.Fields(lines[0])).To(Equal([]string{"CPU", "ms/s", "at", "rest", "1000", "vanilla", "1000", "offloaded"}))
	g.Expect(strings.Fields(lines[1])).To(Equal([]string{"milan/kube-apiserver", "100.0", "200.0"}))
	g.Expect(strings.Fields(lines[2])).To(Equal([]string{"rome/spillway-controller", "0.0", "400.0"}))
	g.Expect(strings.Fields(lines[3])).To(Equal([]string{"lab", "100.0", "600.0"}))
	g.Expect(reportedRest(r)).To(HaveKeyWithValue(Offloaded, HaveKeyWithValue("rome/spillway-controller", BeNumerically("~", 400, 1e-9))))
}
