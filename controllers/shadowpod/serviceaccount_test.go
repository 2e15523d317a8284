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

package shadowpod

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// saAdmission refuses a pod, as the API server's ServiceAccount admission
// does, while its namespace has no default ServiceAccount.
var saAdmission = interceptor.Funcs{Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
	if pod, ok := obj.(*corev1.Pod); ok {
		err := c.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: pod.Spec.ServiceAccountName}, &corev1.ServiceAccount{})
		if apierrors.IsNotFound(err) {
			return apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, pod.Name, err)
		}
	}
	return c.Create(ctx, obj, opts...)
}}

func TestAPodRefusedForWantOfItsServiceAccountIsRetriedWhenItAppears(t *testing.T) {
	sp := newShadowPod("db-0")
	e := newInterceptedEnv(t, saAdmission, newTwin(), sp)
	c, g, ctx := e.c, e.g, context.Background()

	_, err := e.reconcile(sp)
	g.Expect(err).To(HaveOccurred(), "a refused create backs off")
	_, exists := e.pod(sp)
	g.Expect(exists).To(BeFalse())
	got := &virtualkubeletv1alpha1.ShadowPod{}
	g.Expect(c.Get(ctx, keyOf(sp), got)).To(Succeed())
	g.Expect(condition(got, meta.ReadyCondition).Reason).To(Equal(virtualkubeletv1alpha1.PodCreationFailedReason))

	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "default"}}
	g.Expect(c.Create(ctx, sa)).To(Succeed())
	g.Expect(providerServiceAccountCreated.Create(event.CreateEvent{Object: sa})).To(BeTrue())
	reqs := e.r.shadowPodsAwaitingServiceAccount(ctx, sa)
	g.Expect(reqs).To(ConsistOf(reconcile.Request{NamespacedName: keyOf(sp)}), "the refused ShadowPod is queued at once")

	e.mustReconcile(sp)
	e.mustPod(sp)
}

func TestOnlyTheCreationOfTheProviderServiceAccountQueuesShadowPods(t *testing.T) {
	g := NewWithT(t)
	other := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "builder"}}
	def := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "default"}}
	g.Expect(providerServiceAccountCreated.Create(event.CreateEvent{Object: other})).To(BeFalse(), "offloaded pods run as default only")
	g.Expect(providerServiceAccountCreated.Update(event.UpdateEvent{ObjectOld: def, ObjectNew: def})).To(BeFalse())
	g.Expect(providerServiceAccountCreated.Delete(event.DeleteEvent{Object: def})).To(BeFalse())
}

func TestNotReadyLeavesOutReadyShadowPods(t *testing.T) {
	g := NewWithT(t)
	ready := *newShadowPod("ready")
	ready.Status.Conditions = []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionTrue}}
	refused := *newShadowPod("refused")
	refused.Status.Conditions = []metav1.Condition{{Type: meta.ReadyCondition, Status: metav1.ConditionFalse}}
	unreported := *newShadowPod("unreported")
	g.Expect(notReady([]virtualkubeletv1alpha1.ShadowPod{ready, refused, unreported})).To(ConsistOf(
		reconcile.Request{NamespacedName: keyOf(&refused)}, reconcile.Request{NamespacedName: keyOf(&unreported)}))
}
