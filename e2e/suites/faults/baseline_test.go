//go:build e2e

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

package faults_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// The count every fault spec compares against: with no fault, n replicas are
// n local pods Running, n remote pods and n ShadowPods, nothing more.
var _ = Describe("the census without a fault", func() {
	It("counts an offloaded Deployment exactly on both sides", func(ctx context.Context) {
		ns := "baseline"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy)
		Expect(romeC.Create(ctx, deployment(ns, "web", 3))).To(Succeed())
		Eventually(func(g Gomega) {
			c := census(ctx, g, ns, ns)
			g.Expect(c.Running).To(Equal(3))
			g.Expect(c.Local).To(HaveLen(3))
			g.Expect(c.Remote).To(HaveLen(3))
			g.Expect(c.Shadows).To(HaveLen(3))
			for name, p := range c.Local {
				g.Expect(p.Spec.NodeName).To(Equal("liqo-milan"), "pod %s", name)
			}
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))
})
