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

func configMap(name string) string {
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n  namespace: liqo\n"
}

func TestVerifyPutsBackAFolderThatNoLongerBuilds(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	cm := configMap("a")
	for file, content := range map[string]string{"a.yaml": cm, "kustomization.yaml": romeKustomization + "- a.yaml\n",
		"foreigncluster-milan.yaml": configMap("fc"), "externalsecret-milan.yaml": configMap("es")} {
		g.Expect(os.WriteFile(filepath.Join(dir, file), []byte(content), 0o644)).To(Succeed())
	}
	_, err := Build(dir)
	g.Expect(err).NotTo(HaveOccurred())

	e, err := NewEdit(dir)
	g.Expect(err).NotTo(HaveOccurred())
	// A second ConfigMap a: kustomize refuses duplicates.
	g.Expect(e.Write("b.yaml", []byte(cm))).To(Succeed())
	_, err = e.AddResource("b.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(e.Remove("a.yaml")).To(Succeed())
	g.Expect(e.Write("a.yaml", []byte(cm))).To(Succeed())

	err = e.Verify()
	g.Expect(err).To(MatchError(ContainSubstring("the folder was left as it was")))
	g.Expect(filepath.Join(dir, "b.yaml")).NotTo(BeAnExistingFile())
	res, err := Resources(dir)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal([]string{"foreigncluster-milan.yaml", "externalsecret-milan.yaml", "a.yaml"}))
	raw, _ := os.ReadFile(filepath.Join(dir, "a.yaml"))
	g.Expect(string(raw)).To(Equal(cm))
}

func TestIdentityReadsTheInstallFolderWithoutBuildingIt(t *testing.T) {
	g := NewWithT(t)
	f := Fleet{Dir: "../../clusters"}
	id, err := f.Identity("rome")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(id).To(Equal(Identity{ClusterID: "3f5c9e21-7b4a-4d8e-a6c3-5e0f2b9d7a14", ClusterName: "rome"}))
	name, ok := f.ClusterByID("8b1d6f03-c2e5-4a97-9f48-d13b7e6a2c05")
	g.Expect(ok).To(BeTrue())
	g.Expect(name).To(Equal("milan"))
	clusters, err := f.Clusters()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(clusters).To(Equal([]string{"europe-cloud", "europe-milan-edge", "europe-rome-edge", "florence", "london",
		"milan", "naples", "newyork", "rome", "venice"}), "examples/ is no cluster")
	_, err = f.Identity("examples")
	g.Expect(err).To(MatchError(ErrNoIdentity))
}
