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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podIn(name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: phase}}
}

func TestTimingsCountUnsentAndNotRunningPodsAsUnfinished(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Unix(1000, 0)
	tm := newTimings(3)
	tm.sent("a", t0)
	tm.sent("b", t0.Add(time.Second))
	tm.sent("c", t0.Add(2*time.Second))
	running := func(name string) *corev1.Pod { return podIn(name, corev1.PodRunning) }
	tm.seen(podIn("a", corev1.PodPending), t0.Add(100*time.Millisecond))
	tm.seen(running("a"), t0.Add(500*time.Millisecond))
	tm.seen(running("a"), t0.Add(9*time.Second)) // a later update does not move it
	tm.seen(running("b"), t0.Add(4*time.Second))
	s := tm.sample([]string{"a", "b", "c", "d"})
	g.Expect(s.Latencies).To(ConsistOf(500*time.Millisecond, 3*time.Second))
	g.Expect(s.Unfinished).To(Equal(2))
	g.Expect(s.Wall).To(Equal(4 * time.Second))
	g.Expect(tm.complete).NotTo(BeClosed())
	tm.seen(running("c"), t0.Add(5*time.Second))
	g.Expect(tm.complete).To(BeClosed())
}
