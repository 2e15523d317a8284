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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestSuspendedOfferDoesNothing(t *testing.T) {
	offer := newOffer("rome", withSuspend)
	e := newEnv(t, offer, newNode("n1", rl("cpu", "8")))
	g := e.g
	res, got := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(BeZero())
	g.Expect(got.Status.Conditions).To(BeEmpty())
	g.Expect(got.Status.Offered).To(BeNil())
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(-1)))
	g.Expect(apierrors.IsNotFound(e.get(client.ObjectKey{Name: "liqo-tenant-rome"}, &corev1.Namespace{}))).To(BeTrue())
}
