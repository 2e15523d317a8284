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

package offloading_test

import (
	"context"
	"encoding/json"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/controllers/shadowpod"
	"github.com/spillway-dev/spillway/policies"
)

// fieldTrackingSpec checks what milan's API server records of who owns a
// ShadowPod's fields: its pod is one field (x-kubernetes-map-type: atomic),
// so no entry of its managedFields lists the pod's own fields. Each entry
// was once a copy of the pod's shape, held, compared and encoded on every
// ShadowPod write (issue 17, lever 32).
func fieldTrackingSpec(twin *string) {
	It("records a ShadowPod's pod as one owned field on milan", func(ctx context.Context) {
		sps := &virtualkubeletv1alpha1.ShadowPodList{}
		Expect(milanC.List(ctx, sps, client.InNamespace(*twin))).To(Succeed())
		Expect(sps.Items).NotTo(BeEmpty())
		for _, sp := range sps.Items {
			specOwners := 0
			for _, entry := range sp.ManagedFields {
				Expect(entry.FieldsV1).NotTo(BeNil(), "ShadowPod %s: entry of %s", sp.Name, entry.Manager)
				fields := map[string]any{}
				Expect(json.Unmarshal(entry.FieldsV1.GetRawBytes(), &fields)).To(Succeed())
				spec, ok := fields["f:spec"].(map[string]any)
				if !ok {
					continue
				}
				specOwners++
				delete(spec, ".") // spec itself
				Expect(spec).To(Equal(map[string]any{"f:pod": map[string]any{}}),
					"ShadowPod %s: %s's entry lists fields inside spec.pod", sp.Name, entry.Manager)
			}
			Expect(specOwners).To(Equal(1), "ShadowPod %s: one manager, the consumer's, owns spec.pod", sp.Name)
		}
	})
}

// statusWriteSpec checks the provider's status write on milan's real API
// server: it is a merge patch of the status alone, sent through the metadata
// client (issue 17, lever 33), and must still land as the controller's own
// status, Running and Ready, owned on the status subresource.
func statusWriteSpec(twin *string) {
	It("reports each running pod on its ShadowPod's status on milan", func(ctx context.Context) {
		Eventually(func(g Gomega) {
			sps := &virtualkubeletv1alpha1.ShadowPodList{}
			g.Expect(milanC.List(ctx, sps, client.InNamespace(*twin))).To(Succeed())
			g.Expect(sps.Items).NotTo(BeEmpty())
			for _, sp := range sps.Items {
				g.Expect(sp.Status.Phase).To(Equal(corev1.PodRunning), "ShadowPod %s", sp.Name)
				ready := apimeta.FindStatusCondition(sp.Status.Conditions, meta.ReadyCondition)
				g.Expect(ready).NotTo(BeNil(), "ShadowPod %s has no Ready condition", sp.Name)
				g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), "ShadowPod %s", sp.Name)
				g.Expect(ready.Reason).To(Equal(shadowpod.PodReadyReason), "ShadowPod %s", sp.Name)
				g.Expect(sp.Status.ObservedGeneration).To(Equal(sp.Generation), "ShadowPod %s", sp.Name)
				var statusOwner *metav1.ManagedFieldsEntry
				for i, entry := range sp.ManagedFields {
					if entry.Manager == fluxstatus.FieldOwner && entry.Subresource == "status" {
						statusOwner = &sp.ManagedFields[i]
					}
				}
				g.Expect(statusOwner).NotTo(BeNil(), "ShadowPod %s: no status entry of %s", sp.Name, fluxstatus.FieldOwner)
				fields := map[string]any{}
				g.Expect(json.Unmarshal(statusOwner.FieldsV1.GetRawBytes(), &fields)).To(Succeed())
				g.Expect(fields).To(HaveKey("f:status"))
				g.Expect(fields).To(HaveLen(1), "ShadowPod %s: the status write owns the status alone", sp.Name)
			}
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(time.Second).Should(Succeed())
	})
}

// providerDefaultsSpec checks, on both real API servers, that what the
// consumer leaves out of a ShadowPod's pod because the provider fills it in
// again (issue 17, lever 34) is filled in again: the ShadowPod carries none
// of it, and milan's pod has each value rome's pod has.
func providerDefaultsSpec(ns, app string, twin *string) {
	It("leaves the API server's defaults out of a ShadowPod, and milan's pod has rome's values", func(ctx context.Context) {
		local := runningPods(ctx, romeC, ns, app)
		remote := runningPods(ctx, milanC, *twin, app)
		Expect(remote).NotTo(BeEmpty())
		for name, rp := range remote {
			lp, ok := local[name]
			Expect(ok).To(BeTrue(), "pod %s runs on milan only", name)
			sp := &virtualkubeletv1alpha1.ShadowPod{}
			Expect(milanC.Get(ctx, client.ObjectKey{Namespace: *twin, Name: name}, sp)).To(Succeed())
			carried := sp.Spec.Pod
			Expect(carried.DNSPolicy).To(BeEmpty(), "ShadowPod %s", name)
			Expect(carried.SecurityContext).To(BeNil(), "ShadowPod %s", name)
			Expect(carried.EnableServiceLinks).To(BeNil(), "ShadowPod %s", name)
			Expect(carried.Containers[0].TerminationMessagePath).To(BeEmpty(), "ShadowPod %s", name)
			Expect(carried.Containers[0].TerminationMessagePolicy).To(BeEmpty(), "ShadowPod %s", name)
			Expect(carried.Tolerations).To(HaveLen(len(policies.WithoutNotReadyTolerations(carried.Tolerations))),
				"ShadowPod %s carries NotReady tolerations", name)

			Expect(rp.Spec.DNSPolicy).To(Equal(lp.Spec.DNSPolicy), "pod %s", name)
			Expect(rp.Spec.SecurityContext).To(Equal(lp.Spec.SecurityContext), "pod %s", name)
			Expect(rp.Spec.EnableServiceLinks).To(Equal(lp.Spec.EnableServiceLinks), "pod %s", name)
			Expect(rp.Spec.Containers[0].TerminationMessagePath).To(Equal(lp.Spec.Containers[0].TerminationMessagePath), "pod %s", name)
			Expect(rp.Spec.Containers[0].TerminationMessagePolicy).To(Equal(lp.Spec.Containers[0].TerminationMessagePolicy), "pod %s", name)
			Expect(rp.Spec.Containers[0].ImagePullPolicy).To(Equal(lp.Spec.Containers[0].ImagePullPolicy), "pod %s", name)
		}
	})
}
