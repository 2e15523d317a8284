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

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

func reserving(t *testing.T, e *env, list string) {
	t.Helper()
	r, err := policies.ParseReservedNamespaces(list)
	e.g.Expect(err).NotTo(HaveOccurred())
	e.r.Reserved = r
}

func TestAReservedNameIsRefusedBeforeTheProviderInstallsIt(t *testing.T) {
	for twin, entry := range map[string]string{"monitoring": "monitoring", "istio-system": "istio-*"} {
		t.Run(twin, func(t *testing.T) {
			request := newRequest("rome", twin)
			e := newEnv(t, newTenant("rome"), request)
			reserving(t, e, "monitoring,istio-*")
			g := e.g
			res, got := e.mustReconcile(request)
			g.Expect(res).To(BeZero(), "only the consumer or the operator can change it")
			g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
			g.Expect(got.Data[sharingv1alpha1.TwinMessageKey]).To(Equal(`namespace name "` + twin + `" is reserved on cluster milan ` +
				`(--reserved-namespaces entry "` + entry + `") and is never given to a consumer: nothing was created; choose DefaultName or rename the namespace`))
			g.Expect(got.Finalizers).To(BeEmpty())
			namespaces := &corev1.NamespaceList{}
			g.Expect(e.c.List(t.Context(), namespaces)).To(Succeed())
			g.Expect(namespaces.Items).To(HaveLen(1), "only the tenant namespace")
		})
	}
}

func TestANameReservedLaterLeavesTheConsumersTwinAsItWas(t *testing.T) {
	twin := newNamespace("monitoring", twinOf("rome"))
	request := newRequest("rome", "monitoring")
	e := newEnv(t, newTenant("rome"), twin, request)
	reserving(t, e, "monitoring")
	_, got := e.mustReconcile(request)
	e.g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseConflict))
	e.g.Expect(e.namespace("monitoring").ResourceVersion).To(Equal(twin.ResourceVersion), "refused, never deleted: the operator decides")
}

func TestAnUnreservedNameIsServed(t *testing.T) {
	request := newRequest("rome", "shop")
	e := newEnv(t, newTenant("rome"), request)
	reserving(t, e, policies.DefaultReservedNamespaces)
	_, got := e.mustReconcile(request)
	e.g.Expect(got.Data[sharingv1alpha1.TwinPhaseKey]).To(Equal(sharingv1alpha1.TwinPhaseReady))
}
