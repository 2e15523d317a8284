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
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
)

// A pod deleted while rome's manager is down never reaches DeletePod as a
// deletion: the manager that comes back has no record of it. What the pod
// left on milan (its ShadowPod and, through it, the remote pod) is collected
// either by virtual-kubelet's sweep of provider pods no local pod claims,
// which calls DeletePod, or by the resync (reflectors/pod, CollectOrphans),
// whichever comes first; never a ShadowPod of a pod that is still there.
var _ = Describe("a pod deleted while the consumer's manager is down", func() {
	It("has its ShadowPod and remote pod collected after the restart, and only those", func(ctx context.Context) {
		ns := "orphan-collect"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy)
		kept, gone := boundPod(ns, "kept"), boundPod(ns, "gone")
		Expect(romeC.Create(ctx, kept)).To(Succeed())
		Expect(romeC.Create(ctx, gone)).To(Succeed())
		var before Census
		Eventually(func(g Gomega) {
			before = census(ctx, g, ns, ns)
			g.Expect(before.Running).To(Equal(2))
			g.Expect(before.Remote).To(HaveLen(2))
			g.Expect(before.Shadows).To(HaveLen(2))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())

		DeferCleanup(restoreRome)
		Expect(rome.StopExtra(framework.ManagerProcess)).To(Succeed())
		// Forced, as a node's pods are when their node is gone: the local pod
		// is removed at once, with no kubelet (here, no manager) to see it.
		Expect(romeC.Delete(ctx, gone, client.GracePeriodSeconds(0))).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKeyFromObject(gone), &corev1.Pod{}))
		}).WithContext(ctx).WithTimeout(10*time.Second).Should(BeTrue(), "gone is deleted on rome")
		Expect(framework.StartManager(ctx, rome, romeID, managerArgs(rome)...)).To(Succeed())
		restarted := time.Now()

		// Two resync passes (10 s apart) and the API server's confirmation,
		// then the garbage collector and kwok on milan.
		var after Census
		Eventually(func(g Gomega) {
			after = census(ctx, g, ns, ns)
			g.Expect(after.Shadows).To(HaveLen(1))
			g.Expect(after.Shadows).To(HaveKey("kept"))
			g.Expect(after.Remote).To(HaveLen(1))
			g.Expect(after.Remote).To(HaveKey("kept"))
		}).WithContext(ctx).WithTimeout(90*time.Second).WithPolling(time.Second).Should(Succeed(),
			"gone's ShadowPod and remote pod are collected; kept's stay")
		GinkgoWriter.Printf("gone's ShadowPod and remote pod collected %s after the manager's restart\n",
			time.Since(restarted).Round(time.Second))
		Expect(after.Shadows["kept"].UID).To(Equal(before.Shadows["kept"].UID), "kept's ShadowPod was recreated")
		Expect(after.Remote["kept"].UID).To(Equal(before.Remote["kept"].UID), "kept's remote pod was recreated")
		Expect(after.Local).To(HaveLen(1))
		Expect(after.Running).To(Equal(1))
	})
})
