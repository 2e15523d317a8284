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

package gitops_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// gpuOffloading is seed 004's `--selector 'node-type=gpu'`, which no peer of
// the lab matches, as a user would commit it.
const gpuOffloading = `---
apiVersion: v1
kind: Namespace
metadata:
  name: liqo-gpu
---
apiVersion: offloading.liqo.io/v1alpha1
kind: NamespaceOffloading
metadata:
  name: offloading
  namespace: liqo-gpu
spec:
  clusterSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - key: node-type
        operator: In
        values: [gpu]
`

// gpuHealthCheck adds that NamespaceOffloading to the health checks of rome's
// spillway-config, the last entry of clusters/rome/flux/spillway.yaml.
const gpuHealthCheck = `  - apiVersion: offloading.liqo.io/v1alpha1
    kind: NamespaceOffloading
    name: offloading
    namespace: liqo-gpu
`

// stalledOffloadingSpec checks what a Flux user reads when a committed
// NamespaceOffloading will not progress without a change: the real
// kustomize-controller's health check fails fast with the object named,
// well before spillway-config's 10m timeout. It leaves rome's config as the
// fleet's initial commit has it.
func stalledOffloadingSpec(initial *string) {
	It("fails spillway-config's health check fast when a committed selector matches no peer, and recovers when git drops it", func(ctx context.Context) {
		start := time.Now()
		sha, err := gitops.Repo.Commit(ctx, "Offload liqo-gpu to GPU clusters", func(dir string) error {
			if err := appendTo(filepath.Join(dir, "clusters", "rome", "config", "namespace-liqo-demo.yaml"), "", gpuOffloading); err != nil {
				return err
			}
			return appendTo(filepath.Join(dir, "clusters", "rome", "flux", "spillway.yaml"), "    namespace: liqo-demo\n", gpuHealthCheck)
		})
		Expect(err).NotTo(HaveOccurred())
		syncFlux(ctx, rome, sha)
		Eventually(func(g Gomega) {
			ks, err := framework.Kustomization(ctx, romeC, "spillway-config")
			g.Expect(err).NotTo(HaveOccurred())
			attempted, _, _ := unstructured.NestedString(ks.Object, "status", "lastAttemptedRevision")
			g.Expect(attempted).To(HaveSuffix(sha))
			// kustomize-controller records no observedGeneration for a
			// failed attempt, so read its Ready condition directly.
			// Fail fast: kstatus reads Stalled as Failed, so Flux stops
			// waiting at once rather than at the timeout.
			g.Expect(kustomizationReady(ks)).To(And(
				HaveField("Status", metav1.ConditionFalse), HaveField("Reason", "HealthCheckFailed"),
				HaveField("Message", ContainSubstring("failed early due to stalled resources: [NamespaceOffloading/liqo-gpu/offloading status: 'Failed'"))))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		failed := time.Since(start).Round(100 * time.Millisecond)
		ks, err := framework.Kustomization(ctx, romeC, "spillway-config")
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("spillway-config failed its health check %s after the commit (timeout 10m): %s\n", failed, kustomizationReady(ks).Message)
		AddReportEntry("a selector matching no peer failed spillway-config's health check after the commit in", failed.String())

		sha, err = gitops.Repo.Restore(ctx, "Drop liqo-gpu", *initial, "clusters/rome")
		Expect(err).NotTo(HaveOccurred())
		syncFlux(ctx, rome, sha)
		Eventually(func(g Gomega) {
			g.Expect(framework.KustomizationReady(ctx, romeC, "spillway-config", sha)).To(Succeed())
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKey{Name: "liqo-gpu"}, &corev1.Namespace{}))).To(BeTrue(), "rome: namespace liqo-gpu still exists")
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(6*time.Minute))
}

// appendTo appends text to a file that must end with suffix.
func appendTo(path, suffix, text string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(string(data), suffix) {
		return fmt.Errorf("%s does not end with %q", path, suffix)
	}
	return os.WriteFile(path, append(data, text...), 0o644)
}

// kustomizationReady is a Kustomization's Ready condition, or an empty one.
func kustomizationReady(ks *unstructured.Unstructured) metav1.Condition {
	conds, _, _ := unstructured.NestedSlice(ks.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Ready" {
			status, _ := m["status"].(string)
			reason, _ := m["reason"].(string)
			message, _ := m["message"].(string)
			return metav1.Condition{Type: "Ready", Status: metav1.ConditionStatus(status), Reason: reason, Message: message}
		}
	}
	return metav1.Condition{}
}
