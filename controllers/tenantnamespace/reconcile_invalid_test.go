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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestAnInvalidRequestFailsNamingTheKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		request *corev1.ConfigMap
		message string
	}{
		{name: "missing", request: newRequest("rome", "shop", withoutData(sharingv1alpha1.TwinRemoteNamespaceKey)),
			message: `data.remoteNamespace is missing: set it to the twin namespace's name, "shop"`},
		{name: "mismatch", request: newRequest("rome", "shop", withData(sharingv1alpha1.TwinRemoteNamespaceKey, "kube-system")),
			message: `data.remoteNamespace "kube-system" does not match the ConfigMap name "liqo-twin-shop"`},
		{name: "not a DNS label", request: newRequest("rome", "Shop_1"),
			message: `data.remoteNamespace "Shop_1" is not a valid namespace name`},
		{name: "too long", request: newRequest("rome", strings.Repeat("a", 64)),
			message: `is not a valid namespace name: must be no more than 63 characters`},
		{name: "kube- prefix", request: newRequest("rome", "kube-shop"),
			message: `data.remoteNamespace "kube-shop" starts with "kube-", which is reserved`},
		{name: "tenant prefix", request: newRequest("rome", "liqo-tenant-paris"),
			message: `data.remoteNamespace "liqo-tenant-paris" starts with "liqo-tenant-", which is reserved`},
		{name: "name without prefix", request: newRequest("rome", "shop", withName("shop")),
			message: `ConfigMap name "shop" does not start with "liqo-twin-"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, newTenant("rome"), tc.request)
			g := e.g
			res, got := e.mustReconcile(tc.request)
			g.Expect(res).To(BeZero(), "only the consumer can fix it")
			g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseFailed))
			g.Expect(got.Data[sharingv1alpha1.TwinMessageKey]).To(ContainSubstring(tc.message))
			g.Expect(got.Finalizers).To(BeEmpty())
			namespaces := &corev1.NamespaceList{}
			g.Expect(e.c.List(t.Context(), namespaces)).To(Succeed())
			g.Expect(namespaces.Items).To(HaveLen(1), "only the tenant namespace")
		})
	}
}

func TestAFailedRequestIsWithdrawnWithoutTheProvider(t *testing.T) {
	request := newRequest("rome", "Shop")
	e := newEnv(t, newTenant("rome"), request)
	_, got := e.mustReconcile(request)
	e.delete(got)
	e.g.Expect(e.gone(client.ObjectKeyFromObject(request), &corev1.ConfigMap{})).To(BeTrue(), "no finalizer was ever added")
}
