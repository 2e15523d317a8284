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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func newOffer(consumer string, level sharingv1alpha1.PodSecurityLevel) *sharingv1alpha1.ResourceOffer {
	return &sharingv1alpha1.ResourceOffer{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: consumer},
		Spec:   sharingv1alpha1.ResourceOfferSpec{ClusterID: idOf(consumer), PodSecurityLevel: level},
		Status: sharingv1alpha1.ResourceOfferStatus{TenantNamespace: tenantOf(consumer)}}
}

func TestTheTwinEnforcesTheOffersPodSecurityLevel(t *testing.T) {
	request := newRequest("rome", "shop-rome")
	offer := newOffer("rome", sharingv1alpha1.PodSecurityRestricted)
	e := newEnv(t, newTenant("rome"), request, offer, newOffer("paris", ""))
	g := e.g
	e.mustReconcile(request)
	g.Expect(e.namespace("shop-rome").Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))
	g.Expect(e.namespace("shop-rome").Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce-version", "latest"))

	// The provider relaxes the offer in git: the twin follows.
	offer.Spec.PodSecurityLevel = sharingv1alpha1.PodSecurityBaseline
	g.Expect(e.c.Update(context.Background(), offer)).To(Succeed())
	g.Expect(keys(e.r.requestsForOffer(t.Context(), offer))).To(ConsistOf("liqo-tenant-rome/liqo-twin-shop-rome"))
	e.mustReconcile(request)
	g.Expect(e.namespace("shop-rome").Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "baseline"))
}
