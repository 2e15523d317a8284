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

package namespaceoffloading

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func outcome(name string, opts ...func(*peerOutcome)) peerOutcome {
	o := peerOutcome{clusterID: name + "-id", clusterName: name, key: name + "-abc123", selected: true, connected: true, phase: twinReady}
	for _, f := range opts {
		f(&o)
	}
	return o
}

func notSelected(o *peerOutcome)  { o.selected = false; o.phase = "" }
func pending(o *peerOutcome)      { o.phase = "" }
func disconnected(o *peerOutcome) { o.connected = false; o.phase = "" }
func conflict(o *peerOutcome) {
	o.phase = twinConflict
	o.message = `namespace "liqo-demo" already exists`
}

func TestComputeStatePhases(t *testing.T) {
	now := metav1.Now()
	for _, tc := range []struct {
		name     string
		outcomes []peerOutcome
		phase    offloadingv1alpha1.OffloadingPhase
		ready    bool
		msg      string
	}{
		{"seed: naples selected, florence not", []peerOutcome{outcome("naples"), outcome("florence", notSelected)}, offloadingv1alpha1.ReadyOffloadingPhase, true, "to 1 cluster(s)"},
		{"no peer matches", []peerOutcome{outcome("florence", notSelected)}, offloadingv1alpha1.NoClusterSelectedOffloadingPhase, false, "spec.clusterSelector"},
		{"no peers at all", nil, offloadingv1alpha1.NoClusterSelectedOffloadingPhase, false, "matches no peered cluster"},
		{"waiting for the provider", []peerOutcome{outcome("naples", pending)}, offloadingv1alpha1.InProgressOffloadingPhase, false, "0 of 1"},
		{"peer down", []peerOutcome{outcome("naples", disconnected), outcome("milan")}, offloadingv1alpha1.InProgressOffloadingPhase, false, "naples: peering not established"},
		{"one conflict", []peerOutcome{outcome("naples", conflict), outcome("milan")}, offloadingv1alpha1.SomeFailedOffloadingPhase, false, `naples: namespace "liqo-demo" already exists`},
		{"all conflict", []peerOutcome{outcome("naples", conflict)}, offloadingv1alpha1.AllFailedOffloadingPhase, false, "naples"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := computeState("liqo-demo", tc.outcomes, nil, now)
			g.Expect(s.phase).To(Equal(tc.phase))
			g.Expect(s.ready).To(Equal(tc.ready))
			g.Expect(s.message).To(ContainSubstring(tc.msg))
		})
	}
}

func TestComputeStateConditionsMatchTheSeed(t *testing.T) {
	g := NewWithT(t)
	s := computeState("liqo-demo", []peerOutcome{outcome("naples"), outcome("florence", notSelected)}, nil, metav1.Now())
	florence := s.conditions["florence-abc123"]
	g.Expect(florence).To(HaveLen(1))
	g.Expect(florence[0].Type).To(Equal(offloadingv1alpha1.NamespaceOffloadingRequiredCondition))
	g.Expect(florence[0].Reason).To(Equal("ClusterNotSelected"))
	naples := s.conditions["naples-abc123"]
	g.Expect(naples).To(HaveLen(2))
	g.Expect(naples[0].Reason).To(Equal("ClusterSelected"))
	g.Expect(naples[1].Type).To(Equal(offloadingv1alpha1.NamespaceReadyCondition))
	g.Expect(naples[1].Reason).To(Equal("NamespaceCreated"))
	g.Expect(naples[1].Status).To(Equal(metav1.ConditionTrue))
}
