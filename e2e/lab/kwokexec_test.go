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

package lab

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"
)

// clusterExec is the part of kwok's ClusterExec (kwok.x-k8s.io/v1alpha1)
// the lab relies on.
type clusterExec struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Selector *struct{} `json:"selector"`
		Execs    []struct {
			Containers []string `json:"containers"`
			Local      *struct {
				WorkDir string `json:"workDir"`
				Envs    []struct {
					Name  string `json:"name"`
					Value string `json:"value"`
				} `json:"envs"`
			} `json:"local"`
		} `json:"execs"`
	} `json:"spec"`
}

func TestKwokExecRuleAnswersOnlyTheNamedContainersWithTheClusterName(t *testing.T) {
	g := NewWithT(t)
	dir := `/tmp/a lab: "quoted" #dir`
	doc, err := KwokExecRule("milan", dir, []string{"shell", "debug"})
	g.Expect(err).NotTo(HaveOccurred())
	var rule clusterExec
	g.Expect(yaml.UnmarshalStrict([]byte(doc), &rule)).To(Succeed(), doc)
	g.Expect(rule.APIVersion).To(Equal("kwok.x-k8s.io/v1alpha1"))
	g.Expect(rule.Kind).To(Equal("ClusterExec"))
	g.Expect(rule.Metadata.Name).NotTo(BeEmpty())
	g.Expect(rule.Spec.Selector).To(BeNil(), "every pod of the cluster")
	g.Expect(rule.Spec.Execs).To(HaveLen(1))
	// An empty list would make the rule kwok's default for every container.
	g.Expect(rule.Spec.Execs[0].Containers).To(Equal([]string{"shell", "debug"}))
	g.Expect(rule.Spec.Execs[0].Local).NotTo(BeNil())
	g.Expect(rule.Spec.Execs[0].Local.WorkDir).To(Equal(dir))
	g.Expect(rule.Spec.Execs[0].Local.Envs).To(HaveLen(1))
	g.Expect(rule.Spec.Execs[0].Local.Envs[0].Name).To(Equal(KwokExecClusterEnv))
	g.Expect(rule.Spec.Execs[0].Local.Envs[0].Value).To(Equal("milan"))
}

// stagesFor writes kwok's config for a cluster of spec, with empty upstream
// stage files, and returns its documents.
func stagesFor(t *testing.T, spec ClusterSpec) []string {
	t.Helper()
	stages := t.TempDir()
	for _, f := range kwokStageFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(stages, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(stages, f), []byte("kind: Stage"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := &Lab{dir: t.TempDir(), bins: Binaries{KwokStages: stages}}
	c := &Cluster{Name: spec.Name, lab: l, state: &ClusterState{Spec: spec}}
	if err := os.MkdirAll(c.path(), 0o755); err != nil {
		t.Fatal(err)
	}
	path, err := c.writeKwokStages()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n---\n")
}

func TestKwokConfigHasAnExecRuleOnlyWhenTheClusterAsksForOne(t *testing.T) {
	g := NewWithT(t)
	kinds := func(docs []string) []string {
		var out []string
		for _, d := range docs {
			var m struct {
				Kind string `json:"kind"`
			}
			g.Expect(yaml.Unmarshal([]byte(d), &m)).To(Succeed(), d)
			out = append(out, m.Kind)
		}
		return out
	}
	g.Expect(kinds(stagesFor(t, ClusterSpec{Name: "rome"}))).NotTo(ContainElement("ClusterExec"), "kwok's default: exec refused")
	withExec := stagesFor(t, ClusterSpec{Name: "milan", ExecContainers: []string{"shell"}})
	g.Expect(kinds(withExec)).To(ContainElement("ClusterExec"))
	g.Expect(withExec[len(withExec)-1]).To(ContainSubstring(`"shell"`))
}
