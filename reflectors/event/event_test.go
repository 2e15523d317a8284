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

package event

import (
	"encoding/json"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLocalEventPointsAtTheLocalPod(t *testing.T) {
	g := NewWithT(t)
	at := metav1.NewTime(time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC))
	remote := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "policies-venice-0d5e8a", Name: "web-1.1829"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "policies-venice-0d5e8a", Name: "web-1", UID: "naples-uid", FieldPath: "spec.containers{web}"},
		Reason:         "BackOff", Message: "Back-off pulling image", Type: corev1.EventTypeWarning, Count: 3, FirstTimestamp: at, LastTimestamp: at}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "policies", Name: "web-1", UID: "venice-uid"}, Spec: corev1.PodSpec{NodeName: "liqo-naples"}}
	got := LocalEvent(remote, pod, "naples")
	g.Expect(got.Namespace).To(Equal("policies"))
	g.Expect(got.InvolvedObject).To(Equal(corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "policies", Name: "web-1",
		UID: "venice-uid", FieldPath: "spec.containers{web}"}))
	g.Expect(got.Reason).To(Equal("BackOff"))
	g.Expect(got.Count).To(Equal(int32(3)))
	g.Expect(got.ReportingController).To(Equal(ReportingController))
	g.Expect(got.ReportingInstance).To(Equal("naples"))
}

func TestLocalEventOfANewStyleEventHasTimestampsAndACount(t *testing.T) {
	g := NewWithT(t)
	remote := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web-1.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1"},
		Reason: "Scheduled", EventTime: metav1.NewMicroTime(time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC))}
	got := LocalEvent(remote, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "policies", Name: "web-1"}}, "naples")
	g.Expect(got.FirstTimestamp.IsZero()).To(BeFalse())
	g.Expect(got.LastTimestamp).To(Equal(got.FirstTimestamp))
	g.Expect(got.Count).To(Equal(int32(1)))
}

// TestLocalEventSurvivesItsOwnStorage: what write compares is the copy read
// back from the API server, whose timestamps are whole seconds. A new-style
// event's microseconds made every resync rewrite it.
func TestLocalEventSurvivesItsOwnStorage(t *testing.T) {
	g := NewWithT(t)
	remote := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "web-1.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-1"},
		Reason: "Scheduled", EventTime: metav1.NewMicroTime(time.Date(2026, 11, 23, 6, 0, 0, 123456000, time.UTC))}
	want := LocalEvent(remote, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "policies", Name: "web-1"}}, "naples")
	raw, err := json.Marshal(want)
	g.Expect(err).NotTo(HaveOccurred())
	stored := &corev1.Event{}
	g.Expect(json.Unmarshal(raw, stored)).To(Succeed())
	g.Expect(stored.LastTimestamp.Equal(&want.LastTimestamp)).To(BeTrue(), "stored %v, wanted %v", stored.LastTimestamp, want.LastTimestamp)
	g.Expect(stored.FirstTimestamp.Equal(&want.FirstTimestamp)).To(BeTrue())
}
