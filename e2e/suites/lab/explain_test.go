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

package lab_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// kubectl explain reads the API server's published OpenAPI, so this checks
// the descriptions end to end: generated into the CRDs, kept by the API
// server, shown to a person.
var _ = Describe("Spillway's CRDs", func() {
	It("explain their fields through kubectl explain", func(ctx context.Context) {
		rome, err := theLab.Cluster("rome")
		Expect(err).NotTo(HaveOccurred())
		root, err := lab.RepoRoot()
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.ApplyDir(ctx, rome, filepath.Join(root, "kustomize", "crd"))).To(Succeed())

		for field, want := range map[string]string{
			"foreignclusters.spec":                           "ClusterIdentity identifies the remote cluster",
			"foreignclusters.spec.outgoingPeeringEnabled":    "controls whether this cluster consumes resources",
			"resourceoffers.spec.sharingPercentage":          "SharingPercentage offers this percentage",
			"namespaceoffloadings.spec.clusterSelector":      "picks the peers to extend the namespace to",
			"namespaceoffloadings.status.observedGeneration": "so that kstatus treats a never-reconciled object as in progress",
		} {
			By("kubectl explain " + field)
			// The API server publishes a new CRD's OpenAPI a moment after
			// the CRD is established.
			Eventually(func(g Gomega) {
				out, err := exec.CommandContext(ctx, filepath.Join(theLab.Binaries().KubeDir, "kubectl"),
					"--kubeconfig", rome.Kubeconfig(), "explain", field).CombinedOutput()
				g.Expect(err).NotTo(HaveOccurred(), "kubectl explain %s: %s", field, out)
				// kubectl wraps descriptions to the terminal width.
				text := strings.Join(strings.Fields(string(out)), " ")
				g.Expect(text).To(ContainSubstring("DESCRIPTION"))
				g.Expect(text).To(ContainSubstring(want))
			}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		}
	})
})
