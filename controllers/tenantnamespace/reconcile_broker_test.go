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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func brokerOffer(consumer string) *sharingv1alpha1.ResourceOffer {
	o := newOffer(consumer, "")
	o.Spec.Broker = true
	return o
}

func offloadingIn(ns string) client.ObjectKey {
	return client.ObjectKey{Namespace: ns, Name: offloadingv1alpha1.RequiredName}
}

func TestABrokersTwinIsOffloadedOnward(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	offer := brokerOffer("rome")
	e := newEnv(t, newTenant("rome"), request, offer)
	g := e.g
	e.mustReconcile(request)

	g.Expect(e.namespace("shop-rome").Labels).To(HaveKeyWithValue(offloadingv1alpha1.SchedulingEnabledLabel, "true"),
		"labelled at creation, so no pod is admitted before the NamespaceOffloading exists")
	no := &offloadingv1alpha1.NamespaceOffloading{}
	g.Expect(e.get(offloadingIn("shop-rome"), no)).To(Succeed())
	g.Expect(no.Labels).To(HaveKeyWithValue(sharingv1alpha1.BrokerOffloadingLabel, "true"))
	g.Expect(no.Spec.PodOffloadingStrategy).To(Equal(offloadingv1alpha1.RemotePodOffloadingStrategy))
	g.Expect(no.Spec.ClusterSelector.NodeSelectorTerms).To(HaveLen(1))
	g.Expect(no.Spec.ClusterSelector.NodeSelectorTerms[0].MatchExpressions).To(ContainElements(
		corev1.NodeSelectorRequirement{Key: virtualkubeletv1alpha1.RemoteClusterIDLabel, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"rome-id"}},
		corev1.NodeSelectorRequirement{Key: virtualkubeletv1alpha1.BrokeredLabel, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"true"}},
	), "never back to the consumer, never to another broker")

	// Its events reach the request; changed by hand, it is set back.
	g.Expect(keys(e.r.requestsForOffloading(t.Context(), no))).To(ConsistOf("liqo-tenant-rome/liqo-twin-shop-rome"))
	no.Spec.ClusterSelector = nil
	g.Expect(e.c.Update(context.Background(), no)).To(Succeed())
	e.mustReconcile(request)
	g.Expect(e.get(offloadingIn("shop-rome"), no)).To(Succeed())
	g.Expect(no.Spec.ClusterSelector).NotTo(BeNil())

	// No longer a broker in git: the generated offloading goes.
	offer.Spec.Broker = false
	g.Expect(e.c.Update(context.Background(), offer)).To(Succeed())
	e.mustReconcile(request)
	g.Expect(e.gone(offloadingIn("shop-rome"), &offloadingv1alpha1.NamespaceOffloading{})).To(BeTrue())
}

func TestAPlainProvidersTwinIsNotOffloaded(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	e := newEnv(t, newTenant("rome"), request, newOffer("rome", ""))
	e.mustReconcile(request)
	e.g.Expect(e.namespace("shop-rome").Labels).NotTo(HaveKey(offloadingv1alpha1.SchedulingEnabledLabel))
	e.g.Expect(e.gone(offloadingIn("shop-rome"), &offloadingv1alpha1.NamespaceOffloading{})).To(BeTrue())
}

func TestANamespaceOffloadingNotTheBrokersIsLeftAlone(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	mine := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: "shop-rome", Name: offloadingv1alpha1.RequiredName},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{PodOffloadingStrategy: offloadingv1alpha1.LocalPodOffloadingStrategy}}
	for _, offer := range []*sharingv1alpha1.ResourceOffer{brokerOffer("rome"), newOffer("rome", "")} {
		e := newEnv(t, newTenant("rome"), request.DeepCopy(), offer, mine.DeepCopy())
		e.mustReconcile(request)
		got := &offloadingv1alpha1.NamespaceOffloading{}
		e.g.Expect(e.get(offloadingIn("shop-rome"), got)).To(Succeed())
		e.g.Expect(got.Spec.PodOffloadingStrategy).To(Equal(offloadingv1alpha1.LocalPodOffloadingStrategy))
	}
}
