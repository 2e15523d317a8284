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

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// reconciled is a NamespaceOffloading after one reconcile that computed s,
// settled as fluxstatus.Finalize settles it before patching.
func reconciled(t *testing.T, no *offloadingv1alpha1.NamespaceOffloading, s offloadingState) *offloadingv1alpha1.NamespaceOffloading {
	t.Helper()
	fluxstatus.Begin(no, no.Status.ObservedGeneration)
	applyState(no, "liqo-demo", s)
	fluxstatus.Settle(no)
	return no
}

func freshOffloading() *offloadingv1alpha1.NamespaceOffloading {
	return &offloadingv1alpha1.NamespaceOffloading{
		TypeMeta:   metav1.TypeMeta{APIVersion: offloadingv1alpha1.GroupVersion.String(), Kind: "NamespaceOffloading"},
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: "llm-inference", Generation: 1},
		Status:     offloadingv1alpha1.NamespaceOffloadingStatus{ObservedGeneration: -1},
	}
}

// verdict is what kstatus, and so a Flux health check, concludes.
func verdict(t *testing.T, no *offloadingv1alpha1.NamespaceOffloading) *kstatus.Result {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(no)
	if err != nil {
		t.Fatal(err)
	}
	res, err := kstatus.Compute(&unstructured.Unstructured{Object: m})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// Seed 004: --selector 'node-type=gpu' while the one peer, aws-gpu, carries
// no such label. Before, the offloading stayed Reconciling with
// observedGeneration -1 and Flux waited out its timeout; now kstatus says
// Failed at once, with the reason.
func TestSelectorMatchingNoPeerStalls(t *testing.T) {
	now := metav1.Now()
	for _, tc := range []struct {
		name       string
		outcomes   []peerOutcome
		waitingFor []string
		want       kstatus.Status
		reason     string
		message    string
	}{
		{"every peering up, none matches", []peerOutcome{outcome("aws-gpu", notSelected)}, nil,
			kstatus.FailedStatus, string(offloadingv1alpha1.NoClusterSelectedOffloadingPhase), "matches no peered cluster: nothing is offloaded; check the selector against the virtual nodes' labels (peers: aws-gpu)"},
		{"no peers at all", nil, nil,
			kstatus.FailedStatus, string(offloadingv1alpha1.NoClusterSelectedOffloadingPhase), "there are no virtual nodes"},
		{"none matches yet, a peering still coming up", []peerOutcome{outcome("aws-gpu", notSelected)}, []string{"gcp-gpu"},
			kstatus.InProgressStatus, string(offloadingv1alpha1.NoClusterSelectedOffloadingPhase), "waiting for the peering with gcp-gpu"},
		{"the namespace name clashes on every peer", []peerOutcome{outcome("aws-gpu", conflict)}, nil,
			kstatus.FailedStatus, string(offloadingv1alpha1.AllFailedOffloadingPhase), `aws-gpu: namespace "liqo-demo" already exists`},
		{"one peer failing for another reason", []peerOutcome{outcome("aws-gpu", func(o *peerOutcome) { o.phase, o.message = "Failed", "quota exceeded" })}, nil,
			kstatus.InProgressStatus, string(offloadingv1alpha1.AllFailedOffloadingPhase), "quota exceeded"},
		{"waiting for the provider", []peerOutcome{outcome("aws-gpu", pending)}, nil,
			kstatus.InProgressStatus, string(offloadingv1alpha1.InProgressOffloadingPhase), "0 of 1"},
		{"offloaded", []peerOutcome{outcome("aws-gpu")}, nil,
			kstatus.CurrentStatus, "NamespaceOffloaded", "to 1 cluster(s)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			no := reconciled(t, freshOffloading(), computeState("liqo-demo", tc.outcomes, tc.waitingFor, now))
			res := verdict(t, no)
			g.Expect(res.Status).To(Equal(tc.want), res.Message)
			g.Expect(conditions.GetReason(no, meta.ReadyCondition)).To(Equal(tc.reason))
			g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(ContainSubstring(tc.message))
			if tc.want == kstatus.FailedStatus {
				g.Expect(conditions.IsStalled(no)).To(BeTrue())
				g.Expect(conditions.Has(no, meta.ReconcilingCondition)).To(BeFalse())
				g.Expect(no.Status.ObservedGeneration).To(Equal(no.Generation), "kstatus ignores conditions of an unobserved generation")
				g.Expect(res.Message).To(ContainSubstring(tc.message), "Flux reports kstatus's message")
			}
			if tc.want == kstatus.InProgressStatus {
				g.Expect(conditions.IsStalled(no)).To(BeFalse())
			}
		})
	}
}

// A stalled offloading is not stuck: when a matching peer appears, the next
// reconcile (a virtual node watch) makes it Ready and drops Stalled.
func TestStalledOffloadingRecoversWhenAPeerMatches(t *testing.T) {
	g := NewWithT(t)
	now := metav1.Now()
	no := reconciled(t, freshOffloading(), computeState("liqo-demo", []peerOutcome{outcome("aws-gpu", notSelected)}, nil, now))
	g.Expect(verdict(t, no).Status).To(Equal(kstatus.FailedStatus))

	no = reconciled(t, no, computeState("liqo-demo", []peerOutcome{outcome("aws-gpu", notSelected), outcome("gcp-gpu")}, nil, now))
	g.Expect(verdict(t, no).Status).To(Equal(kstatus.CurrentStatus))
	g.Expect(conditions.Has(no, meta.StalledCondition)).To(BeFalse())
	g.Expect(conditions.IsReady(no)).To(BeTrue())
}

func TestPeeringsWithoutNode(t *testing.T) {
	fc := func(name, id string, opts ...func(*discoveryv1alpha1.ForeignCluster)) discoveryv1alpha1.ForeignCluster {
		f := discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		f.Spec.ClusterIdentity.ClusterID = id
		for _, o := range opts {
			o(&f)
		}
		return f
	}
	node := func(id string) corev1.Node {
		return corev1.Node{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{discoveryv1alpha1.RemoteClusterIDLabel: id}}}
	}
	g := NewWithT(t)
	got := peeringsWithoutNode([]discoveryv1alpha1.ForeignCluster{
		fc("milan", "milan-id"),
		fc("naples", "naples-id"),
		fc("florence", "florence-id", func(f *discoveryv1alpha1.ForeignCluster) {
			f.Spec.OutgoingPeeringEnabled = discoveryv1alpha1.PeeringEnabledNo
		}),
		fc("venice", "venice-id", func(f *discoveryv1alpha1.ForeignCluster) { f.Spec.Suspend = true }),
	}, []corev1.Node{node("milan-id")})
	g.Expect(got).To(Equal([]string{"naples"}), "milan is up; florence is not consumed; venice is suspended")
}
