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
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

var fromRome = map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id"}

func TestDeletionKeepsEverythingWhileTheConsumerHasPods(t *testing.T) {
	offer := newOffer("rome")
	offloaded := newPod("liqo-tenant-rome", "offloaded", "n1", rl("cpu", "1"), fromRome)
	e := newEnv(t, offer, offloaded)
	g := e.g
	e.publish(offer)
	g.Expect(e.c.Delete(context.Background(), offer)).To(Succeed())

	res, got := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(Equal(consumerPodsRequeue))
	g.Expect(got.Finalizers).To(ContainElement(Finalizer))
	ready := condition(got, sharingv1alpha1.ReadyCondition)
	g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
	g.Expect(ready.Reason).To(Equal(ConsumerStillHasPodsReason))
	g.Expect(ready.Message).To(ContainSubstring("1 pod(s) and 0 ShadowPod(s) here (liqo-tenant-rome: 1 pod(s), 0 ShadowPod(s))"))
	g.Expect(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{})).To(Succeed())
	g.Expect(e.get(identityKey, &corev1.Secret{})).To(Succeed())

	// The consumer drains its pod: the tenant and the offer go.
	g.Expect(e.c.Delete(context.Background(), offloaded)).To(Succeed())
	_, err := e.reconcile(offer)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKeyFromObject(offer), &sharingv1alpha1.ResourceOffer{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(e.get(identityKey, &corev1.Secret{}))).To(BeTrue())
}

func TestDeletionWaitsForShadowPodsAnywhere(t *testing.T) {
	offer := newOffer("rome")
	sp := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "default-rome", Name: "web", Labels: fromRome}}
	e := newEnv(t, offer, sp)
	g := e.g
	e.publish(offer)
	g.Expect(e.c.Delete(context.Background(), offer)).To(Succeed())
	_, got := e.mustReconcile(offer)
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Message).To(ContainSubstring("default-rome: 0 pod(s), 1 ShadowPod(s)"))
	g.Expect(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{})).To(Succeed())
}

func TestDeletionLeavesOtherConsumersAlone(t *testing.T) {
	rome, paris := newOffer("rome"), newOffer("paris")
	// What this cluster holds as paris's consumer, in the same namespace: not an identity it issued.
	credentials := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "rome-credentials",
		Labels: map[string]string{sharingv1alpha1.RemoteClusterIDLabel: "rome-id"}}}
	e := newEnv(t, rome, paris, credentials)
	g := e.g
	e.publish(rome)
	e.publish(paris)
	g.Expect(e.c.Delete(context.Background(), rome)).To(Succeed())
	_, err := e.reconcile(rome)
	g.Expect(err).NotTo(HaveOccurred())

	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{}))).To(BeTrue())
	g.Expect(e.get(client.ObjectKey{Name: "liqo-tenant-paris"}, &corev1.Namespace{})).To(Succeed())
	g.Expect(e.get(client.ObjectKey{Namespace: "liqo", Name: "liqo-identity-paris"}, &corev1.Secret{})).To(Succeed())
	g.Expect(e.get(client.ObjectKeyFromObject(credentials), &corev1.Secret{})).To(Succeed())
}

func TestDeletionKeepsATenantAnotherOfferStillUses(t *testing.T) {
	first := newOffer("rome")
	second := newOffer("rome-again", withClusterID("rome-id"), withClusterName("rome"))
	e := newEnv(t, first, second)
	g := e.g
	e.publish(first)
	g.Expect(e.c.Delete(context.Background(), first)).To(Succeed())
	_, err := e.reconcile(first)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKeyFromObject(first), &sharingv1alpha1.ResourceOffer{}))).To(BeTrue())
	g.Expect(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{})).To(Succeed())
	g.Expect(e.get(identityKey, &corev1.Secret{})).To(Succeed())
}

func TestDeletionTakesTheConsumersWorkloadsBackOnceTheGracePeriodEnds(t *testing.T) {
	offer := newOffer("rome")
	offer.Spec.WithdrawalGracePeriod = &metav1.Duration{Duration: time.Minute}
	sp := &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: "default-rome", Name: "web", Labels: fromRome}}
	pod := newPod("default-rome", "web", "n1", nil, fromRome)
	parisPod := newPod("default-paris", "web", "n1", nil, map[string]string{sharingv1alpha1.OriginClusterIDLabel: "paris-id"})
	e := newEnv(t, offer, sp, pod, parisPod)
	g := e.g
	e.publish(offer)
	g.Expect(e.c.Delete(context.Background(), offer)).To(Succeed())
	deleted := &sharingv1alpha1.ResourceOffer{}
	g.Expect(e.get(client.ObjectKeyFromObject(offer), deleted)).To(Succeed())
	at := deleted.DeletionTimestamp.Time

	// Within the grace period nothing of the consumer's is touched.
	e.r.Clock = func() time.Time { return at.Add(55 * time.Second) }
	res, got := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(Equal(5*time.Second), "the next pass is when the grace period ends")
	ready := condition(got, sharingv1alpha1.ReadyCondition)
	g.Expect(ready.Reason).To(Equal(ConsumerStillHasPodsReason))
	g.Expect(ready.Message).To(ContainSubstring("(spec.withdrawalGracePeriod 1m0s after the deletion) this cluster deletes them itself"))
	g.Expect(e.get(client.ObjectKeyFromObject(sp), &virtualkubeletv1alpha1.ShadowPod{})).To(Succeed())
	g.Expect(e.get(client.ObjectKeyFromObject(pod), &corev1.Pod{})).To(Succeed())

	// After it, this cluster takes them back, then the offer goes.
	e.r.Clock = func() time.Time { return at.Add(61 * time.Second) }
	_, got = e.mustReconcile(offer)
	ready = condition(got, sharingv1alpha1.ReadyCondition)
	g.Expect(ready.Reason).To(Equal(WithdrawalGraceExpiredReason))
	g.Expect(ready.Message).To(ContainSubstring("cluster rome-id did not take its workloads back within spec.withdrawalGracePeriod (1m0s"))
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKeyFromObject(sp), &virtualkubeletv1alpha1.ShadowPod{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKeyFromObject(pod), &corev1.Pod{}))).To(BeTrue())
	g.Expect(e.get(client.ObjectKeyFromObject(parisPod), &corev1.Pod{})).To(Succeed(), "another consumer's pod is not touched")

	_, err := e.reconcile(offer)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKeyFromObject(offer), &sharingv1alpha1.ResourceOffer{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(e.get(identityKey, &corev1.Secret{}))).To(BeTrue(), "the consumer's identity is revoked")
}

func TestWithdrawalGraceDefaultsToTenMinutes(t *testing.T) {
	g := NewWithT(t)
	g.Expect(newOffer("rome").WithdrawalGrace()).To(Equal(10 * time.Minute))
}
