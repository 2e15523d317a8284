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

package resourceoffer

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestTenantNamespaceConflictStallsWithoutRequeue(t *testing.T) {
	rome := newOffer("rome")
	impostor := newOffer("rome-2", withClusterID("other-id"), withClusterName("Rome"))
	e := newEnv(t, rome, impostor)
	g := e.g
	e.publish(rome)

	res, got := e.mustReconcile(impostor)
	g.Expect(res).To(BeZero(), "only a change in git can fix it")
	ready := condition(got, sharingv1alpha1.ReadyCondition)
	g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
	g.Expect(ready.Reason).To(Equal(TenantNamespaceConflictReason))
	g.Expect(ready.Message).To(And(ContainSubstring("Namespace liqo-tenant-rome belongs to cluster rome-id of ResourceOffer liqo/rome"),
		ContainSubstring("ResourceOffer liqo/rome-2 is for cluster other-id")))
	g.Expect(condition(got, sharingv1alpha1.StalledCondition).Status).To(Equal(metav1.ConditionTrue))
	g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation), "Stalled is a final state for this generation")
	g.Expect(got.Status.TenantNamespace).To(BeEmpty())

	// rome's tenant is untouched, and deleting the impostor does not take it away.
	cm := &corev1.ConfigMap{}
	g.Expect(e.get(client.ObjectKey{Namespace: "liqo-tenant-rome", Name: sharingv1alpha1.OfferConfigMapName}, cm)).To(Succeed())
	g.Expect(cm.Data[sharingv1alpha1.OfferConsumerClusterIDKey]).To(Equal("rome-id"))
	g.Expect(e.c.Delete(context.Background(), got)).To(Succeed())
	_, err := e.reconcile(impostor)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{})).To(Succeed())
	g.Expect(e.get(identityKey, &corev1.Secret{})).To(Succeed())
}

func TestANamespaceNotMadeForAConsumerIsNotTakenOver(t *testing.T) {
	offer := newOffer("rome")
	existing := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liqo-tenant-rome", Labels: map[string]string{"team": "rome"}}}
	e := newEnv(t, offer, existing)
	g := e.g
	_, got := e.mustReconcile(offer)
	g.Expect(condition(got, sharingv1alpha1.StalledCondition).Reason).To(Equal(TenantNamespaceConflictReason))
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Message).To(ContainSubstring("was not created for a consumer"))
	ns := &corev1.Namespace{}
	g.Expect(e.get(client.ObjectKeyFromObject(existing), ns)).To(Succeed())
	g.Expect(ns.Labels).To(Equal(map[string]string{"team": "rome"}))
	g.Expect(e.get(client.ObjectKey{Namespace: "liqo-tenant-rome", Name: sharingv1alpha1.ConsumerServiceAccountName}, &corev1.ServiceAccount{})).NotTo(Succeed())
}

func TestAConflictWithATerminatingNamespaceWaits(t *testing.T) {
	offer := newOffer("rome")
	now := metav1.Now()
	leaving := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liqo-tenant-rome", DeletionTimestamp: &now, Finalizers: []string{"kubernetes"},
		Labels: map[string]string{sharingv1alpha1.RemoteClusterIDLabel: "old-id", sharingv1alpha1.TenantNamespaceLabel: "true"}}}
	e := newEnv(t, offer, leaving)
	g := e.g
	res, got := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(Equal(terminatingRequeue))
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Reason).To(Equal(TenantNamespaceConflictReason))
	g.Expect(condition(got, sharingv1alpha1.StalledCondition).Type).To(BeEmpty())
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(-1)))
}
