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

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// saHold is how long milan's controller-manager stays down after milan first
// refused the pod. Measured in this lab without the ShadowPod controller's
// ServiceAccount watch: the refused create was retried a dozen times in the
// first 40 s, then 12 s, 20 s and (by the doubling) about 40 s apart. Held
// this long, the ServiceAccount appears about midway through that 40 s
// step, so a controller that only retried would create the pod some 20 s
// after it, far from the bound below whichever way the lab's timing drifts.
// (With a 45 s hold it was 10 and 11 s late.)
const saHold = 70 * time.Second

// docs/faults.md: a provider refuses every pod of a namespace until its
// controller-manager has made the namespace's default ServiceAccount, the
// one offloaded pods run as, which can take tens of seconds after an outage.
var _ = Describe("a twin namespace whose ServiceAccount milan's controller-manager makes late", func() {
	It("gets its refused pod created as soon as the ServiceAccount appears, not a retry backoff later", func(ctx context.Context) {
		Expect(milan.Stop(lab.ControllerManager)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			if !milan.Running(lab.ControllerManager) {
				Expect(milan.Start(ctx, lab.ControllerManager)).To(Succeed())
			}
		})
		ns := "sa-late"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy)
		Expect(romeC.Create(ctx, pwPod(ns, "web"))).To(Succeed())
		Eventually(func(g Gomega) {
			sp := &virtualkubeletv1alpha1.ShadowPod{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, sp)).To(Succeed())
			ready := apimeta.FindStatusCondition(sp.Status.Conditions, meta.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal(virtualkubeletv1alpha1.PodCreationFailedReason))
			g.Expect(ready.Message).To(ContainSubstring("service account"), "milan refuses the pod for want of the twin's ServiceAccount")
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())

		pwSleep(ctx, saHold)
		Expect(milan.Start(ctx, lab.ControllerManager)).To(Succeed())
		sa := &corev1.ServiceAccount{}
		var remote corev1.Pod
		Eventually(func(g Gomega) {
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, sa)).To(Succeed())
			c := census(ctx, g, ns, ns)
			pwExpectMatched(g, c, 1)
			remote = c.Remote["web"]
		}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
		late := remote.CreationTimestamp.Sub(sa.CreationTimestamp.Time)
		GinkgoWriter.Printf("milan made the twin's ServiceAccount at %s and the pod %s later\n", sa.CreationTimestamp.UTC().Format(time.TimeOnly), late)
		// Both timestamps are milan's, to the second.
		Expect(late).To(BeNumerically("<=", 5*time.Second), "the pod is created when the ServiceAccount appears")
	}, SpecTimeout(5*time.Minute))
})
