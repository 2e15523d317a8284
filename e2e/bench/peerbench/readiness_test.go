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

package peerbench

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

func node(name string, ready corev1.ConditionStatus) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}}}
}

func foreignCluster(name string, ready metav1.ConditionStatus) *discoveryv1alpha1.ForeignCluster {
	return &discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: discoveryv1alpha1.ForeignClusterStatus{Conditions: []metav1.Condition{{Type: discoveryv1alpha1.ReadyCondition, Status: ready}}}}
}

func TestReadinessTimesTheLaterOfNodeAndForeignClusterFromTheCommit(t *testing.T) {
	g := NewWithT(t)
	r := newReadiness()
	t0 := time.Unix(1000, 0)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	r.commit("peer-000", t0)
	r.commit("peer-001", t0)
	// Not Ready yet, and objects of peerings not committed: ignored.
	r.saw(node("liqo-peer-000", corev1.ConditionFalse), at(0.5))
	r.saw(node("liqo-milan", corev1.ConditionTrue), at(0.5))
	r.saw(node("peer-001", corev1.ConditionTrue), at(0.5))
	r.saw(foreignCluster("peer-000", metav1.ConditionUnknown), at(0.5))
	r.saw(node("liqo-peer-000", corev1.ConditionTrue), at(2))
	r.saw(foreignCluster("peer-000", metav1.ConditionTrue), at(3))
	// A later update of a Ready object does not move the time.
	r.saw(node("liqo-peer-000", corev1.ConditionTrue), at(9))
	r.saw(foreignCluster("peer-001", metav1.ConditionTrue), at(1))

	l := r.latencies([]string{"peer-000", "peer-001"})
	g.Expect(l.Node).To(HaveExactElements(2 * time.Second))
	g.Expect(l.ForeignCluster).To(HaveExactElements(3*time.Second, time.Second))
	g.Expect(l.Both).To(HaveExactElements(3 * time.Second))
	g.Expect(l.Pending).To(HaveExactElements("peer-001"))
	g.Expect(l.Last).To(Equal(at(3)))

	r.saw(node("liqo-peer-001", corev1.ConditionTrue), at(4))
	l = r.latencies([]string{"peer-000", "peer-001"})
	g.Expect(l.Both).To(HaveExactElements(3*time.Second, 4*time.Second))
	g.Expect(l.Pending).To(BeEmpty())
	g.Expect(l.Last).To(Equal(at(4)))
}
