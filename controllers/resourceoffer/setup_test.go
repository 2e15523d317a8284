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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func names(reqs []reconcile.Request) []string {
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, r.Name)
	}
	return out
}

func TestWatchesMapToTheRightOffers(t *testing.T) {
	rome := newOffer("rome")
	paris := newOffer("paris", withPercentage(50))
	fixed := newOffer("lisbon", withLimits(rl("cpu", "4")))
	e := newEnv(t, rome, paris, fixed)
	g, ctx := e.g, context.Background()

	g.Expect(names(e.r.percentageOffers(ctx, newNode("n1", nil)))).To(ConsistOf("rome", "paris"))
	g.Expect(names(e.r.offersForPodChange(ctx, []string{""}, "", false))).To(ConsistOf("rome", "paris"))
	g.Expect(names(e.r.offersForPodChange(ctx, []string{"lisbon-id"}, "lisbon-id", true))).To(ConsistOf("rome", "paris"),
		"a live fixed offer depends on no pod")
	g.Expect(names(e.r.offersForPodChange(ctx, []string{"rome-id"}, "rome-id", true))).To(ConsistOf("paris"),
		"rome's offer leaves rome's pods out, so they never resize it")
	g.Expect(names(e.r.offersForPodChange(ctx, []string{"rome-id", "paris-id"}, "paris-id", false))).To(ConsistOf("rome", "paris"),
		"a pod moved from rome's count to paris's changes both offers")
	g.Expect(e.r.offersForPodChange(ctx, nil, "", true)).To(BeEmpty(), "an unbound pod of the provider's holds nothing")
	g.Expect(e.r.offersForPodChange(ctx, nil, "lisbon-id", false)).To(BeEmpty(), "a status update of a consumer's pod")

	token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-tenant-lisbon", Name: sharingv1alpha1.ConsumerTokenSecretName,
		Labels: map[string]string{sharingv1alpha1.RemoteClusterIDLabel: "lisbon-id"}}}
	g.Expect(hasConsumerLabel(token)).To(BeTrue())
	g.Expect(names(e.r.offersForConsumerObject(ctx, token))).To(ConsistOf("lisbon"))
	other := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "app"}}
	g.Expect(hasConsumerLabel(other)).To(BeFalse())
	g.Expect(e.r.offersForConsumerObject(ctx, other)).To(BeEmpty())
}

func TestADeletedOfferRequeuesThoseSharingItsTenantName(t *testing.T) {
	rome := newOffer("rome")
	waiting := newOffer("rome-2", withClusterID("other-id"), withClusterName("Rome"))
	paris := newOffer("paris")
	e := newEnv(t, waiting, paris)
	g := e.g
	g.Expect(names(e.r.offersSharingTenant(context.Background(), rome))).To(ConsistOf("rome-2"))
	g.Expect(deletedOnly.Delete(event.DeleteEvent{Object: rome})).To(BeTrue())
	g.Expect(deletedOnly.Update(event.UpdateEvent{ObjectOld: rome, ObjectNew: rome})).To(BeFalse())
}

func TestNodePredicateIgnoresHeartbeats(t *testing.T) {
	base := newNode("n1", rl("cpu", "8"))
	for _, tc := range []struct {
		name   string
		change func(*corev1.Node)
		passes bool
	}{
		{name: "heartbeat", change: func(n *corev1.Node) { n.Status.Conditions[0].LastHeartbeatTime = metav1.Now() }},
		{name: "allocatable", change: func(n *corev1.Node) { n.Status.Allocatable = rl("cpu", "16") }, passes: true},
		{name: "cordon", change: func(n *corev1.Node) { n.Spec.Unschedulable = true }, passes: true},
		{name: "not ready", change: func(n *corev1.Node) { n.Status.Conditions[0].Status = corev1.ConditionFalse }, passes: true},
		{name: "labels", change: func(n *corev1.Node) { n.Labels = map[string]string{"liqo.io/type": "virtual-node"} }, passes: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := base.DeepCopy()
			tc.change(changed)
			NewWithT(t).Expect(nodeCapacityChanged.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: changed})).To(Equal(tc.passes))
		})
	}
}

func TestADepartingPodWakesItsConsumersOfferBeingDeleted(t *testing.T) {
	withdrawing := newOffer("lisbon", withLimits(rl("cpu", "4")), func(o *sharingv1alpha1.ResourceOffer) {
		o.Finalizers = []string{Finalizer}
		o.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	})
	e := newEnv(t, withdrawing, newOffer("rome"))
	g, ctx := e.g, context.Background()
	g.Expect(names(e.r.offersForPodChange(ctx, nil, "lisbon-id", true))).To(ConsistOf("lisbon"), "its deletion waits for this pod")
	g.Expect(names(e.r.offersForPodChange(ctx, []string{"lisbon-id"}, "lisbon-id", true))).To(ConsistOf("lisbon", "rome"))
	g.Expect(e.r.offersForPodChange(ctx, nil, "lisbon-id", false)).To(BeEmpty(), "an update is neither arrival nor departure")
}

func TestSetupRequiresTheProviderIdentity(t *testing.T) {
	g := NewWithT(t)
	g.Expect((&ResourceOfferReconciler{LocalClusterID: providerID}).SetupWithManager(nil)).To(MatchError(ContainSubstring("APIServerURL")))
}
