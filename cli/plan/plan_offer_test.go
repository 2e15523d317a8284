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

// fixedOffer is milan's offer to rome with fixed limits; an empty gpu leaves
// the GPU out.
func fixedOffer(cpu, memory, gpu string) string {
	o := `apiVersion: sharing.liqo.io/v1alpha1
kind: ResourceOffer
metadata:
  name: rome
  namespace: liqo
spec:
  clusterId: ` + romeID + `
  clusterName: rome
  labels:
    topology.liqo.io/region: north
  resources:
    limits:
      cpu: "` + cpu + `"
      memory: ` + memory + "\n"
	if gpu != "" {
		o += `      nvidia.com/gpu: "` + gpu + "\"\n"
	}
	return o
}

func TestPlanListsShrinkingOfferLimits(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	write(t, base, "milan/config/resourceoffer-rome.yaml", fixedOffer("8", "32Gi", "1"))
	write(t, head, "milan/config/resourceoffer-rome.yaml", fixedOffer("4", "64Gi", "1"))

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse())
	milan := changesOf(p, "milan")
	g.Expect(milan).To(HaveLen(2))
	g.Expect(milan[0].Kind).To(Equal(OfferShrink))
	g.Expect(milan[0].Message).To(HavePrefix("offer to rome shrinks: cpu 8 → 4;"))
	g.Expect(milan[1].Kind).To(Equal(OfferChange))
	g.Expect(milan[1].Message).To(Equal("offer to rome grows: memory 32Gi → 64Gi"))
	g.Expect(changesOf(p, "rome")).To(BeEmpty(), "the offer's labels did not change")
	g.Expect(text(t, p)).To(ContainSubstring("milan\n  ! offer to rome shrinks: cpu 8 → 4"))
}

func TestPlanListsADroppedResourceAndALowerPercentageAsShrinking(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	write(t, base, "milan/config/resourceoffer-rome.yaml", fixedOffer("8", "32Gi", "1"))
	write(t, head, "milan/config/resourceoffer-rome.yaml", fixedOffer("8", "32Gi", ""))

	p := compute(t, base, head, Options{})
	g.Expect(changesOf(p, "milan")).To(ConsistOf(And(HaveField("Kind", OfferShrink), HaveField("Message", ContainSubstring("nvidia.com/gpu 1 → none")))))

	base, head = copyFleet(t), copyFleet(t)
	edit(t, head, "milan/config/resourceoffer-rome.yaml", "  labels:", "  sharingPercentage: 50\n  labels:")
	p = compute(t, base, head, Options{})
	g.Expect(changesOf(p, "milan")).To(ConsistOf(And(HaveField("Kind", OfferShrink), HaveField("Message", ContainSubstring("spec.sharingPercentage 90 → 50")))))
}

func TestPlanRejectsLimitsWithAPercentage(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	write(t, head, "milan/config/resourceoffer-rome.yaml", fixedOffer("8", "32Gi", "1")+"  sharingPercentage: 50\n")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	milan := changesOf(p, "milan")
	g.Expect(milan).To(HaveLen(1))
	g.Expect(milan[0].Kind).To(Equal(InvalidOffer))
	g.Expect(milan[0].Rejected).To(BeTrue())
	g.Expect(milan[0].Message).To(ContainSubstring("spec.resources.limits and spec.sharingPercentage are mutually exclusive"))
}

func TestPlanRejectsAChangedConsumerID(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "milan/config/resourceoffer-rome.yaml", "clusterId: "+romeID, "clusterId: another-consumer")
	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(changesOf(p, "milan")).To(ContainElement(And(HaveField("Kind", InvalidOffer), HaveField("Message", ContainSubstring("spec.clusterId is immutable")))))
}
