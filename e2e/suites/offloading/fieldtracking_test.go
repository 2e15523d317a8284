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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
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
