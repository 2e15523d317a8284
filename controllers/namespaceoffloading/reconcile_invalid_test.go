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
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func TestAWronglyNamedOffloadingStallsWithoutTouchingPeers(t *testing.T) {
	e := newEnv(t, newOffloading(withName("extend-apps")), virtualNode("milan"))
	milan := e.connect("milan")

	_, err := e.r.Reconcile(context.Background(), reqFor("extend-apps"))
	e.g.Expect(err).NotTo(HaveOccurred())

	no := &offloadingv1alpha1.NamespaceOffloading{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Namespace: localNs, Name: "extend-apps"}, no)).To(Succeed())
	e.g.Expect(conditions.IsStalled(no)).To(BeTrue())
	e.g.Expect(conditions.GetReason(no, meta.ReadyCondition)).To(Equal("InvalidName"))
	e.g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(ContainSubstring(`must be named "offloading"`))
	e.g.Expect(no.Status.ObservedGeneration).To(Equal(int64(1)), "a stalled object has been looked at")
	e.g.Expect(twinRequest(e.g, milan)).To(BeNil())
	e.g.Expect(schedulingLabel(e)).To(BeEmpty(), "the namespace is not opened to the pod webhook")
}

func TestAnInvalidSelectorStalls(t *testing.T) {
	bad := newOffloading(func(no *offloadingv1alpha1.NamespaceOffloading) {
		no.Spec.ClusterSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "region", Operator: corev1.NodeSelectorOpGt, Values: []string{"north"}}}}}}
	})
	e := newEnv(t, bad, virtualNode("milan"))
	milan := e.connect("milan")

	_, no := e.mustReconcile()

	e.g.Expect(conditions.IsStalled(no)).To(BeTrue())
	e.g.Expect(conditions.GetReason(no, meta.ReadyCondition)).To(Equal(offloadingv1alpha1.InvalidClusterSelectorReason))
	e.g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(And(ContainSubstring("spec.clusterSelector"), ContainSubstring("fix it in git")))
	e.g.Expect(twinRequest(e.g, milan)).To(BeNil())
}

// schedulingLabel is the value of the label that opens namespace apps to the pod webhook.
func schedulingLabel(e *env) string {
	ns := &corev1.Namespace{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Name: localNs}, ns)).To(Succeed())
	return ns.Labels[offloadingv1alpha1.SchedulingEnabledLabel]
}

// Liqo's broker seed offloads the liqo namespace; here it holds every
// peering's identity and credentials, which reflection would copy to peers.
func TestTheManagersNamespaceIsNeverOffloaded(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan"))
	e.r.ManagerNamespace = localNs
	milan := e.connect("milan")

	_, no := e.mustReconcile()

	e.g.Expect(conditions.IsStalled(no)).To(BeTrue())
	e.g.Expect(conditions.GetReason(no, meta.ReadyCondition)).To(Equal(offloadingv1alpha1.ManagerNamespaceReason))
	e.g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(And(ContainSubstring("never offloaded"), ContainSubstring("spec.broker")))
	e.g.Expect(twinRequest(e.g, milan)).To(BeNil())
	e.g.Expect(schedulingLabel(e)).To(BeEmpty())
}
