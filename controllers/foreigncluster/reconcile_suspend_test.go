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

package foreigncluster

import (
	"testing"

	. "github.com/onsi/gomega"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

// TestReconcileSuspendedAsksNothingOfTheRuntime: a suspended ForeignCluster
// neither connects, nor ensures, nor stops its peering, whatever its Secret.
func TestReconcileSuspendedAsksNothingOfTheRuntime(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	r, c := newReconciler(rt, newForeignCluster(withSuspend, withOutgoing(discoveryv1alpha1.PeeringEnabledNo)), virtualNode(),
		credentialsSecret(map[string]string{"kubeconfig": "{{{"}))
	fc := reconcileAndGet(t, r, c)
	g.Expect(rt.connects).To(BeEmpty())
	g.Expect(rt.ensured).To(BeEmpty())
	g.Expect(rt.stopped).To(BeEmpty())
	g.Expect(rt.withdrawn).To(BeEmpty())
	g.Expect(readyOf(fc)).To(BeNil(), "no verdict on a suspended object")
	g.Expect(fc.Status.ObservedGeneration).To(Equal(int64(-1)))
}
