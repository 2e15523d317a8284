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

package reflectbench

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
)

func TestWatcherRecordsTheFirstSightingAtTheRevisionOnly(t *testing.T) {
	g := NewWithT(t)
	w := newWatcher("1", 2)
	old, cur := configMap("ns", 0), configMap("ns", 0)
	cur.SetAnnotations(map[string]string{RevisionAnnotation: "1"})
	w.observe(old)
	g.Expect(w.seen).To(BeEmpty(), "an older revision is not the update")
	w.observe(cur)
	first := w.seen[name(0)]
	w.observe(cur)
	g.Expect(w.seen[name(0)]).To(Equal(first), "a later event does not move the first sighting")
	other := endpointSlice("ns", 1)
	other.SetAnnotations(map[string]string{RevisionAnnotation: "1"})
	w.observe(other)
	g.Eventually(w.done).Should(BeClosed())
}

func TestSampleCountsUnseenObjectsAsUnfinished(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Now()
	w := newWatcher("1", 2)
	w.seen[name(0)] = t0.Add(40 * time.Millisecond)
	s := sample(map[string]time.Time{name(0): t0, name(1): t0.Add(time.Millisecond)}, w)
	g.Expect(s.Latencies).To(Equal([]time.Duration{40 * time.Millisecond}))
	g.Expect(s.Unfinished).To(Equal(1))
}

func TestSampleKeepsWhenEachUpdateWasSentAndSeen(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Now()
	w := newWatcher("1", 3)
	sent := map[string]time.Time{}
	for i := range 300 {
		sent[name(i)] = t0.Add(time.Duration(i) * 100 * time.Millisecond)
		w.seen[name(i)] = sent[name(i)].Add(10 * time.Millisecond)
	}
	// The three slowest, all sent in the window starting at 20 s.
	for _, i := range []int{200, 201, 230} {
		w.seen[name(i)] = sent[name(i)].Add(900 * time.Millisecond)
	}
	windows := podbench.SlowWindows(sample(sent, w), 5*time.Second)
	g.Expect(windows).To(HaveLen(1))
	g.Expect(windows[0].FromMs).To(Equal(int64(20_000)))
	g.Expect(windows[0].Pods).To(Equal(3))
	g.Expect(windows[0].MaxMs).To(Equal(int64(900)))
}
