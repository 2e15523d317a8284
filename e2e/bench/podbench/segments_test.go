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
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// at builds a stage whose pod "p<i>" is at t0 + offsets[i].
func at(name string, t0 time.Time, offsets ...time.Duration) Stage {
	s := Stage{Name: name, At: map[string]time.Time{}}
	for i, o := range offsets {
		s.At[podName(i)] = t0.Add(o)
	}
	return s
}

func podName(i int) string { return string(rune('a' + i)) }

func TestSegmentsAreTheTimeBetweenConsecutiveStagesPerPod(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	sent := at("create sent", t0, 0, 10*ms, 20*ms)
	// Pod c's creation was sent last but it was scheduled first: its own times count.
	rome := at("scheduled in rome", t0, 5*ms, 25*ms, 21*ms)
	running := at("Running seen in rome", t0, 105*ms, 325*ms, 121*ms)
	// Pod b is the slowest: its 300 ms after scheduling are the tail's time.
	got := Segments([]Stage{sent, rome, running}, map[string]bool{"b": true})
	g.Expect(got).To(HaveLen(2))
	g.Expect(got[0]).To(Equal(Segment{From: "create sent", To: "scheduled in rome", Pods: 3, P50: 5 * ms, P99: 15 * ms, SlowP50: 15 * ms}))
	g.Expect(got[1]).To(Equal(Segment{From: "scheduled in rome", To: "Running seen in rome", Pods: 3, P50: 100 * ms, P99: 300 * ms, SlowP50: 300 * ms}))
}

func TestSegmentsLeaveOutAPodMissingFromAStage(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Now()
	genoa := at("scheduled in genoa", t0, time.Second)
	got := Segments([]Stage{at("create sent", t0, 0, 0), genoa, at("Running seen in rome", t0, 3*time.Second, 4*time.Second)}, nil)
	g.Expect(got[0].Pods).To(Equal(1), "pod b has no Scheduled event in genoa")
	g.Expect(got[1].Pods).To(Equal(1))
	g.Expect(got[1].P50).To(Equal(2 * time.Second))
}

func TestSegmentTableNamesThePathAndTheStages(t *testing.T) {
	g := NewWithT(t)
	r := withTwoHops()
	r.TwoHops.Sample.Segments = []Segment{{From: "scheduled in genoa", To: "scheduled in milan", Pods: 100, P50: 40 * time.Millisecond, P99: 90 * time.Millisecond, SlowP50: 70 * time.Millisecond}}
	var b strings.Builder
	g.Expect(WriteSegmentTable(&b, []Result{r})).To(Succeed())
	g.Expect(b.String()).To(MatchRegexp(`100\s+two-hops\s+scheduled in genoa\s+scheduled in milan\s+40ms\s+90ms\s+70ms\s+100`))
}

func TestScheduledTimesTakeOnlyTheSchedulersOwnEvents(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 11, 26, 22, 0, 0, 0, time.UTC)
	event := func(name, pod, reason, controller string, at time.Time) *eventsv1.Event {
		return &eventsv1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Reason: reason, ReportingController: controller,
			Regarding: corev1.ObjectReference{Kind: "Pod", Name: pod}, EventTime: metav1.NewMicroTime(at)}
	}
	c := fake.NewClientBuilder().WithScheme(framework.Scheme()).WithObjects(
		event("a", "p1", "Scheduled", "default-scheduler", t0.Add(1500*time.Microsecond)),
		event("b", "p1", "Scheduled", "liqo.io/event-reflection", t0),
		event("c", "p2", "Pulled", "default-scheduler", t0),
	).Build()
	got, err := scheduledTimes(context.Background(), c, "ns")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(HaveLen(1))
	g.Expect(got["p1"].Sub(t0)).To(Equal(1500*time.Microsecond), "a relayed peer's event is not this cluster's scheduling")
}
