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

package foreigncluster

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

// TestReconcileUnpeerEvictsPodsThenDeletesTheNode: disabling outgoing peering
// withdraws the peer, cordons the node, evicts its pods, and only once the
// node is empty stops the runtime's session and deletes the node.
func TestReconcileUnpeerEvictsPodsThenDeletesTheNode(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"}, Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
	elsewhere := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "local"}, Spec: corev1.PodSpec{NodeName: "rome-1"}}
	r, c := newReconciler(rt, newForeignCluster(withOutgoing(discoveryv1alpha1.PeeringEnabledNo)), virtualNode(), pod, elsewhere)

	fc := reconcileAndGet(t, r, c)
	g.Expect(rt.withdrawn).To(ConsistOf(providerID), "no new offloading towards a peer being unpeered")
	node := &corev1.Node{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, node)).To(Succeed())
	g.Expect(node.Spec.Unschedulable).To(BeTrue(), "cordoned first")
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{}))).To(BeTrue(), "the pod is evicted")
	g.Expect(c.Get(ctx, client.ObjectKeyFromObject(elsewhere), &corev1.Pod{})).To(Succeed(), "pods of other nodes stay")
	g.Expect(fc.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusDisconnecting))
	g.Expect(readyOf(fc).Message).To(ContainSubstring("1 pod(s)"))
	g.Expect(rt.stopped).To(BeEmpty(), "the session runs until the node is empty")

	reconcileAndGet(t, r, c)
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{}))).To(BeTrue())
	g.Expect(rt.stopped).To(ConsistOf("milan"))
	g.Expect(rt.connects).To(BeEmpty(), "unpeering never connects to the provider")

	fc = reconcileAndGet(t, r, c)
	g.Expect(readyOf(fc).Reason).To(Equal(discoveryv1alpha1.PeeringDisabledReason))
	g.Expect(fc.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusNone))
}

func TestReconcileDeleteStopsTheSessionAndReleasesTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	r, c := newReconciler(rt, newForeignCluster(), virtualNode())
	fc := &discoveryv1alpha1.ForeignCluster{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "milan"}, fc)).To(Succeed())
	g.Expect(c.Delete(ctx, fc)).To(Succeed())
	_, err := r.Reconcile(ctx, reconcileRequest("milan"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rt.stopped).To(ConsistOf("milan"))
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue(), "finalizer released")
}
