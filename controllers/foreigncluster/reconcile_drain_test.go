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
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// stuckPod is a pod on milan's virtual node that an eviction only marks
// Terminating (its finalizer stands for the kubelet's confirmation).
func stuckPod() client.Object {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", Finalizers: []string{"example.com/kubelet"}},
		Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
}

// TestReconcileDeleteStartsADrainingSessionAfterARestart: a manager started
// mid-unpeer has no session, and only a session's virtual kubelet deletes an
// evicted pod's remote copy and then the local pod; so it starts one that
// drains without offering the peer for new offloading.
func TestReconcileDeleteStartsADrainingSessionAfterARestart(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	rt.noSession = true
	r, c := deletedForeignCluster(g, rt, stuckPod(), credentialsSecret(map[string]string{"kubeconfig": kubeconfig}))

	fc := reconcileAndGet(t, r, c)

	g.Expect(rt.ensured).To(HaveLen(1))
	g.Expect(rt.ensured[0].Name).To(Equal("milan"))
	g.Expect(rt.ensured[0].Draining).To(BeTrue(), "the session hands pods back; the peer is not offered again")
	g.Expect(rt.withdrawn).To(ContainElement(providerID))
	g.Expect(readyOf(fc).Message).To(Equal("deleting: virtual node liqo-milan cordoned, 1 pod(s) still to evict"))
	g.Expect(fc.Finalizers).To(ContainElement(Finalizer))
	g.Expect(rt.stopped).To(BeEmpty())
}

// TestReconcileDeleteSaysWhyItCannotDrain: without credentials no session
// can start; the pods and the node stay, and Ready says why.
func TestReconcileDeleteSaysWhyItCannotDrain(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	rt.noSession = true
	r, c := deletedForeignCluster(g, rt, stuckPod())

	fc := reconcileAndGet(t, r, c)

	g.Expect(rt.ensured).To(BeEmpty())
	g.Expect(readyOf(fc).Message).To(And(
		ContainSubstring("1 pod(s) still to evict, which stay until a session can hand them back"),
		ContainSubstring("its credentials secret liqo/milan-credentials is gone")))
	g.Expect(fc.Finalizers).To(ContainElement(Finalizer))
}

// TestReconcileDeleteLeavesARunningSessionAlone: the usual unpeer, with its
// session still running, neither connects nor ensures again.
func TestReconcileDeleteLeavesARunningSessionAlone(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	r, c := deletedForeignCluster(g, rt, stuckPod())

	reconcileAndGet(t, r, c)

	g.Expect(rt.connects).To(BeEmpty())
	g.Expect(rt.ensured).To(BeEmpty())
}

// TestReconcileDeleteNamesTheBudgetThatHoldsAPod: an eviction refused by a
// PodDisruptionBudget is retried, and Ready says which budget and why.
func TestReconcileDeleteNamesTheBudgetThatHoldsAPod(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	r, c := deletedForeignCluster(g, rt, stuckPod())
	budget := "The disruption budget web needs 1 healthy pods and has 1 currently"
	r.Client = interceptor.NewClient(c.(client.WithWatch), interceptor.Funcs{
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, req client.Object, opts ...client.SubResourceCreateOption) error {
			err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
			err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: budget}}
			return err
		}})

	fc := reconcileAndGet(t, r, c)

	g.Expect(readyOf(fc).Message).To(Equal("deleting: virtual node liqo-milan cordoned, 1 pod(s) still to evict; " +
		"the eviction of pod demo/web is refused by a PodDisruptionBudget: " + budget))
	g.Expect(fc.Finalizers).To(ContainElement(Finalizer))
}
