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
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func keys(reqs []reconcile.Request) []string {
	out := make([]string, 0, len(reqs))
	for _, r := range reqs {
		out = append(out, r.String())
	}
	return out
}

func TestWatchesMapToTheRightRequests(t *testing.T) {
	fromRome, fromParis := newRequest("rome", "shop"), newRequest("paris", "shop")
	unrelated := newRequest("rome", "blog")
	e := newEnv(t, newTenant("rome"), newTenant("paris"), fromRome, fromParis, unrelated)
	g, ctx := e.g, t.Context()

	g.Expect(keys(e.r.requestsForNamespace(ctx, newNamespace("shop")))).
		To(ConsistOf("liqo-tenant-rome/liqo-twin-shop", "liqo-tenant-paris/liqo-twin-shop"))
	g.Expect(e.r.withdrawnRequestsForWorkload(ctx, newPod("shop", "web"))).To(BeEmpty(), "no request for shop is withdrawn")

	_, got := e.mustReconcile(fromRome)
	e.delete(got)
	g.Expect(keys(e.r.withdrawnRequestsForWorkload(ctx, newShadowPod("shop", "web")))).To(ConsistOf("liqo-tenant-rome/liqo-twin-shop"))
}

func TestPredicates(t *testing.T) {
	g := NewWithT(t)
	request := newRequest("rome", "shop")
	g.Expect(isRequest(request)).To(BeTrue())
	plain := &corev1.ConfigMap{}
	g.Expect(isRequest(plain)).To(BeFalse())
	plain.Finalizers = []string{Finalizer}
	g.Expect(isRequest(plain)).To(BeTrue(), "a former request must still release its finalizer")

	pod := newPod("shop", "web")
	g.Expect(deletedOnly.Delete(event.DeleteEvent{Object: pod})).To(BeTrue())
	g.Expect(deletedOnly.Create(event.CreateEvent{Object: pod})).To(BeFalse())
	g.Expect(deletedOnly.Update(event.UpdateEvent{ObjectOld: pod, ObjectNew: pod})).To(BeFalse())
}

func TestSetupRequiresTheProviderName(t *testing.T) {
	g := NewWithT(t)
	g.Expect((&TwinNamespaceReconciler{}).SetupWithManager(nil)).To(MatchError(ContainSubstring("LocalClusterName")))
}
