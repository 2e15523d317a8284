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

package plan

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestPlanRejectsAMappingStrategyChange(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "namespaceMappingStrategy: DefaultName", "namespaceMappingStrategy: EnforceSameName")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	changes := changesOf(p, "rome")
	g.Expect(changes).To(HaveLen(1))
	c := changes[0]
	g.Expect(c.Kind).To(Equal(MappingStrategyChange))
	g.Expect(c.Namespace).To(Equal("liqo-demo"))
	g.Expect(c.Rejected).To(BeTrue())
	g.Expect(c.Message).To(ContainSubstring("spec.namespaceMappingStrategy"))
	g.Expect(c.Message).To(ContainSubstring("DefaultName → EnforceSameName"))
	g.Expect(c.Message).To(ContainSubstring("spillway unoffload namespace liqo-demo"), "the message gives the fix")

	out := text(t, p)
	g.Expect(out).To(ContainSubstring("rome\n  x REJECTED liqo-demo: spec.namespaceMappingStrategy cannot change"))
	g.Expect(out).To(HaveSuffix("Plan: 1 change in 1 cluster, 1 rejected: Flux would fail to apply it; fix it before merging.\n"))
}

// Leaving the field out means DefaultName, so dropping it changes nothing.
func TestPlanTreatsAnOmittedMappingStrategyAsDefaultName(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "  namespaceMappingStrategy: DefaultName\n", "")
	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse())
	g.Expect(p.Clusters).To(BeEmpty())
}
