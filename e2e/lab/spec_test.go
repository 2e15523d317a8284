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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/validation"
)

func TestParseClusterSpecs(t *testing.T) {
	g := NewWithT(t)
	specs, err := ParseClusterSpecs("rome  milan:nodes=3,cpu=16,nvidia.com/gpu=2,label.topology.liqo.io/region=north")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(Names(specs)).To(Equal([]string{"rome", "milan"}))
	g.Expect(specs[0].Nodes).To(Equal(DefaultNodes))
	g.Expect(specs[1].Nodes).To(Equal(3))
	g.Expect(specs[1].Capacity).To(HaveKeyWithValue("cpu", "16"))
	g.Expect(specs[1].Capacity).To(HaveKeyWithValue("memory", "32Gi"))
	g.Expect(specs[1].Capacity).To(HaveKeyWithValue("nvidia.com/gpu", "2"))
	g.Expect(specs[1].Labels).To(HaveKeyWithValue("topology.liqo.io/region", "north"))
}

func TestParseClusterSpecsRejectsBadInput(t *testing.T) {
	for input, want := range map[string]string{
		"":                 "no cluster named",
		"Rome":             "invalid",
		"rome rome":        "named twice",
		"rome:nodes=x":     "nodes=",
		"rome:cpu=lots":    "not a quantity",
		"rome:colour=blue": "unknown option",
		"rome:nodes":       "not key=value",
	} {
		_, err := ParseClusterSpecs(input)
		NewWithT(t).Expect(err).To(MatchError(ContainSubstring(want)), "input %q", input)
	}
}

func TestParseClusterSpecsReadsExecContainers(t *testing.T) {
	g := NewWithT(t)
	specs, err := ParseClusterSpecs("rome milan:nodes=2,exec=shell,exec=debug")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(specs[0].ExecContainers).To(BeEmpty(), "exec is opt-in")
	g.Expect(specs[1].ExecContainers).To(Equal([]string{"shell", "debug"}))
	_, err = ParseClusterSpecs("milan:exec=Shell_1")
	g.Expect(err).To(MatchError(And(ContainSubstring(`exec="Shell_1"`), ContainSubstring("not a container name"))))
}

// FuzzParseClusterSpecs: whatever is typed after --clusters, the parser
// answers with specs the lab can start or an error, never a panic, and never
// an exec container kwok's config could not name.
func FuzzParseClusterSpecs(f *testing.F) {
	for _, seed := range []string{"rome", "rome milan:nodes=3,cpu=16", "milan:exec=shell,exec=debug,label.a/b=c", "milan:exec=", "a:exec=\"x\""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		specs, err := ParseClusterSpecs(list)
		if err != nil {
			return
		}
		for _, s := range specs {
			if !clusterNameRE.MatchString(s.Name) {
				t.Fatalf("accepted cluster name %q", s.Name)
			}
			for _, c := range s.ExecContainers {
				if errs := validation.IsDNS1123Label(c); len(errs) > 0 {
					t.Fatalf("accepted exec container %q: %v", c, errs)
				}
			}
		}
	})
}
