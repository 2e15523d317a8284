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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

type obsOpt func(*observation)

// newObservation is a published offer to rome; options break one thing.
func newObservation(opts ...obsOpt) observation {
	o := observation{offerRef: "liqo/rome", clusterID: "rome-id", tenantNamespace: "liqo-tenant-rome",
		identitySecret: "liqo-identity-rome", percent: 90, offered: rl("cpu", "7200m", "memory", "28Gi")}
	for _, f := range opts {
		f(&o)
	}
	return o
}

func withConflict(c tenantConflict) obsOpt { return func(o *observation) { o.conflict = &c } }
func withTokenPending(o *observation)      { o.tokenPending = true }
func withOffered(offered string) obsOpt {
	return func(o *observation) { o.offered = rl("cpu", offered) }
}
func withNothingOffered(o *observation) { o.offered = nil }
func withZeroed(name string, free string) obsOpt {
	return func(o *observation) {
		o.zeroed = append(o.zeroed, policies.RoundedToZero{Name: corev1.ResourceName(name), Free: resource.MustParse(free)})
	}
}

func TestReadyState(t *testing.T) {
	for _, tc := range []struct {
		name     string
		obs      observation
		ready    bool
		stalled  bool
		reason   string
		messages []string
	}{
		{name: "published", obs: newObservation(), ready: true, reason: sharingv1alpha1.OfferPublishedReason,
			messages: []string{"offering cpu=7200m, memory=28Gi to cluster rome-id through namespace liqo-tenant-rome"}},
		{name: "published with a rounded-to-zero resource is still ready", obs: newObservation(withZeroed("nvidia.com/gpu", "1")),
			ready: true, reason: sharingv1alpha1.OfferPublishedReason},
		{name: "nothing to offer is still an offer", obs: newObservation(withNothingOffered), ready: true,
			reason: sharingv1alpha1.OfferPublishedReason, messages: []string{"offering nothing", "to cluster rome-id"}},
		{name: "a broker names what it resells", obs: newObservation(withResold("liqo-milan", "liqo-turin")), ready: true,
			reason:   sharingv1alpha1.OfferPublishedReason,
			messages: []string{"offering cpu=7200m, memory=28Gi as a broker, resold from liqo-milan, liqo-turin, to cluster rome-id"}},
		{name: "a broker with no provider offers nothing and says why", obs: newObservation(withResold(), withNothingOffered), ready: true,
			reason: sharingv1alpha1.OfferPublishedReason, messages: []string{"no Ready, schedulable virtual node of a provider", "spec.broker"}},
		{name: "token pending", obs: newObservation(withTokenPending), reason: ConsumerTokenPendingReason,
			messages: []string{"liqo-tenant-rome/liqo-consumer-token", "ServiceAccount liqo-consumer"}},
		{name: "namespace held by another offer", stalled: true, reason: TenantNamespaceConflictReason,
			obs: newObservation(withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "rome-2-id", holderOffer: "liqo/rome-2"})),
			messages: []string{"Namespace liqo-tenant-rome belongs to cluster rome-2-id of ResourceOffer liqo/rome-2",
				"ResourceOffer liqo/rome is for cluster rome-id", "another spec.clusterName"}},
		{name: "namespace held by a cluster no offer names", stalled: true, reason: TenantNamespaceConflictReason,
			obs:      newObservation(withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "old-id"})),
			messages: []string{"belongs to cluster old-id, which no ResourceOffer names any more", "delete the stale object"}},
		{name: "namespace not made for a consumer", stalled: true, reason: TenantNamespaceConflictReason,
			obs:      newObservation(withConflict(tenantConflict{object: "Namespace liqo-tenant-rome"})),
			messages: []string{"was not created for a consumer (no label liqo.io/remote-cluster-id)", "ResourceOffer liqo/rome"}},
		{name: "namespace of another cluster being deleted: wait, not stalled", reason: TenantNamespaceConflictReason,
			obs:      newObservation(withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "old-id", terminating: true})),
			messages: []string{"held by cluster old-id, is being deleted: waiting to create it for cluster rome-id"}},
		{name: "a conflict outranks a pending token", stalled: true, reason: TenantNamespaceConflictReason,
			obs: newObservation(withTokenPending, withConflict(tenantConflict{object: "Secret liqo/liqo-identity-rome", holderID: "x"}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := readyState(tc.obs)
			g.Expect(s.status).To(Equal(tc.ready))
			g.Expect(s.stalled).To(Equal(tc.stalled))
			g.Expect(s.reason).To(Equal(tc.reason))
			for _, m := range tc.messages {
				g.Expect(s.message).To(ContainSubstring(m))
			}
		})
	}
}

func TestRoundedToZeroState(t *testing.T) {
	for _, tc := range []struct {
		name    string
		obs     observation
		active  bool
		message string
	}{
		{name: "nothing rounded", obs: newObservation()},
		{name: "a GPU at 90%", obs: newObservation(withZeroed("nvidia.com/gpu", "1")), active: true,
			message: "nvidia.com/gpu: 90% of 1 free rounds down to 0: raise spec.sharingPercentage"},
		{name: "not reported while the tenant is someone else's", obs: newObservation(withZeroed("nvidia.com/gpu", "1"),
			withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "x"}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := roundedToZeroState(tc.obs)
			g.Expect(s.status).To(Equal(tc.active))
			if tc.active {
				g.Expect(s.reason).To(Equal(ResourceRoundedToZeroReason))
				g.Expect(s.message).To(ContainSubstring(tc.message))
			}
		})
	}
}

func TestDeletionState(t *testing.T) {
	for _, tc := range []struct {
		name     string
		where    map[string]workloadCount
		blocked  bool
		messages []string
	}{
		{name: "nothing left", where: map[string]workloadCount{}},
		{name: "pods in two namespaces", blocked: true,
			where: map[string]workloadCount{"liqo-tenant-rome": {pods: 2, shadowPods: 1}, "default-rome": {pods: 1}},
			messages: []string{"cluster rome-id still has 3 pod(s) and 1 ShadowPod(s) here",
				"default-rome: 1 pod(s), 0 ShadowPod(s); liqo-tenant-rome: 2 pod(s), 1 ShadowPod(s)",
				"liqo.io/origin-cluster-id=rome-id"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := deletionState("rome-id", tc.where)
			g.Expect(s.status).To(Equal(tc.blocked))
			if tc.blocked {
				g.Expect(s.reason).To(Equal(ConsumerStillHasPodsReason))
			}
			for _, m := range tc.messages {
				g.Expect(s.message).To(ContainSubstring(m))
			}
		})
	}
}

func TestApplyStatusClearsWhatAConflictDoesNotHold(t *testing.T) {
	g := NewWithT(t)
	offer := newOffer("rome")
	applyStatus(offer, newObservation(withOffered("1")))
	g.Expect(offer.Status.TenantNamespace).To(Equal("liqo-tenant-rome"))
	g.Expect(offer.Status.Offered.Cpu().String()).To(Equal("1"))

	applyStatus(offer, newObservation(withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "x"})))
	g.Expect(offer.Status.TenantNamespace).To(BeEmpty())
	g.Expect(offer.Status.IdentitySecretName).To(BeEmpty())
	g.Expect(offer.Status.Offered).To(BeNil())
	g.Expect(condition(offer, sharingv1alpha1.StalledCondition).Reason).To(Equal(TenantNamespaceConflictReason))
}

func withResold(nodes ...string) obsOpt {
	return func(o *observation) { o.broker, o.resold = true, nodes }
}

func TestTransitStateWarnsOnBrokerOffersOnly(t *testing.T) {
	for _, tc := range []struct {
		name     string
		obs      observation
		active   bool
		messages []string
	}{
		{name: "a plain offer: its pods run here, one hop away", obs: newObservation()},
		{name: "a broker names where the pods run and what to do", obs: newObservation(withResold("liqo-milan", "liqo-turin")), active: true,
			messages: []string{"run at liqo-milan, liqo-turin, two hops from it", "cannot reach each other by pod IP", "peer cluster rome-id with those providers directly"}},
		{name: "a broker with no provider yet", obs: newObservation(withResold(), withNothingOffered), active: true,
			messages: []string{"run at the providers this cluster peers with"}},
		{name: "not reported while the tenant is someone else's", obs: newObservation(withResold("liqo-milan"),
			withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "x"}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := transitState(tc.obs)
			g.Expect(s.status).To(Equal(tc.active))
			if tc.active {
				g.Expect(s.reason).To(Equal(BrokerTransitNotBuiltReason))
			}
			for _, m := range tc.messages {
				g.Expect(s.message).To(ContainSubstring(m))
			}
		})
	}
}
