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

package fleet

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

const romeKustomization = `# Rome's Spillway objects: the peering with milan, its credentials, and an
# offloaded namespace with a workload.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- foreigncluster-milan.yaml
- externalsecret-milan.yaml
`

func TestAddResourceKeepsCommentsAndIsIdempotent(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(romeKustomization), 0o644)).To(Succeed())
	e, err := NewEdit(dir)
	g.Expect(err).NotTo(HaveOccurred())

	changed, err := e.AddResource("offloading-liqo-demo.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue())
	changed, err = e.AddResource("offloading-liqo-demo.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeFalse(), "listing a file twice is a no-op")

	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(raw)).To(Equal(romeKustomization + "- offloading-liqo-demo.yaml\n"))

	changed, err = e.RemoveResource("offloading-liqo-demo.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue())
	raw, _ = os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	g.Expect(string(raw)).To(Equal(romeKustomization))
}

func TestAddResourceCreatesTheKustomization(t *testing.T) {
	g := NewWithT(t)
	dir := filepath.Join(t.TempDir(), "config")
	e, err := NewEdit(dir)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = e.AddResource("a.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	res, err := Resources(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal([]string{"a.yaml"}))
	raw, _ := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	g.Expect(string(raw)).To(ContainSubstring("resources:\n- a.yaml\n"))

	g.Expect(e.Rollback()).To(Succeed())
	g.Expect(filepath.Join(dir, "kustomization.yaml")).NotTo(BeAnExistingFile())
}
