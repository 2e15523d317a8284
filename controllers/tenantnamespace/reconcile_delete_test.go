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

package tenantnamespace

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestDeletionWaitsForPodsThenDeletesTheTwin(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), request)
	g := e.g
	e.mustReconcile(request)
	sp := newShadowPod("shop-rome", "web")
	pod := newPod("shop-rome", "web")
	other := newPod("shop-rome", "debug")
	for _, obj := range []client.Object{sp, pod, other} {
		g.Expect(e.c.Create(t.Context(), obj)).To(Succeed())
	}
	e.delete(request)

	res, got := e.mustReconcile(request)
	g.Expect(res.RequeueAfter).To(Equal(drainRequeue))
	g.Expect(got.Finalizers).To(ContainElement(Finalizer))
	g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseReady))
	g.Expect(got.Data[sharingv1alpha1.TwinMessageKey]).To(Equal("twin namespace shop-rome is being deleted: " +
		"waiting for 2 pods to terminate (2 Pods and 1 ShadowPods remain; the consumer deletes its ShadowPods)"))
	g.Expect(e.namespace("shop-rome").DeletionTimestamp).To(BeNil())
	g.Expect(e.get(client.ObjectKeyFromObject(sp), sp)).To(Succeed(), "ShadowPods are the consumer's to delete")

	// The consumer deletes its ShadowPod; garbage collection takes the pods.
	for _, obj := range []client.Object{sp, pod, other} {
		e.delete(obj)
	}
	_, got = e.mustReconcile(request)
	g.Expect(got).To(BeNil(), "the finalizer is released")
	g.Expect(e.gone(client.ObjectKey{Name: "shop-rome"}, &corev1.Namespace{})).To(BeTrue())
}

func TestDeletionDeletesOnlyItsOwnTwin(t *testing.T) {
	// rome asked for "shop" while paris held it: a conflict, then withdrawn.
	romeRequest := newRequest("rome", "shop")
	parisTwin := newNamespace("shop", twinOf("paris"))
	// A name rome's request points at that no one made for a consumer.
	foreign := newNamespace("legacy", withLabel("team", "legacy"))
	legacyRequest := newRequest("rome", "legacy")
	e := newEnv(t, newTenant("rome"), newTenant("paris"), romeRequest, parisTwin, foreign, legacyRequest)
	g := e.g
	for _, r := range []*corev1.ConfigMap{romeRequest, legacyRequest} {
		_, got := e.mustReconcile(r)
		g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
		// Even a finalizer left by an earlier reconcile must not lead to a deletion.
		got.Finalizers = []string{Finalizer}
		g.Expect(e.c.Update(t.Context(), got)).To(Succeed())
		e.delete(got)
		_, got = e.mustReconcile(r)
		g.Expect(got).To(BeNil())
	}
	g.Expect(e.namespace("shop").Labels).To(HaveKeyWithValue(sharingv1alpha1.TwinNamespaceLabel, "paris-id"))
	g.Expect(e.namespace("legacy").Labels).To(Equal(map[string]string{"team": "legacy"}))
}

func TestDeletionKeepsATwinAnotherRequestOfTheConsumerHolds(t *testing.T) {
	// rome's tenant namespace was renamed: both carry rome's ID.
	old := newRequest("rome", "shop-rome")
	renamedTenant := newNamespace("liqo-tenant-rome-2", withLabel(sharingv1alpha1.TenantNamespaceLabel, "true"),
		withLabel(sharingv1alpha1.RemoteClusterIDLabel, "rome-id"))
	current := newRequest("rome", "shop-rome", withNamespace("liqo-tenant-rome-2"))
	e := newEnv(t, newTenant("rome"), renamedTenant, old, current)
	g := e.g
	e.mustReconcile(old)
	e.mustReconcile(current)
	e.delete(old)
	_, got := e.mustReconcile(old)
	g.Expect(got).To(BeNil())
	g.Expect(e.namespace("shop-rome").DeletionTimestamp).To(BeNil())
}

func TestRemovingTheLabelWithdrawsTheRequest(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), request)
	g := e.g
	_, got := e.mustReconcile(request)
	delete(got.Labels, sharingv1alpha1.TwinRequestLabel)
	g.Expect(e.c.Update(t.Context(), got)).To(Succeed())
	_, got = e.mustReconcile(request)
	g.Expect(got.Finalizers).To(BeEmpty())
	g.Expect(e.gone(client.ObjectKey{Name: "shop-rome"}, &corev1.Namespace{})).To(BeTrue())
}
