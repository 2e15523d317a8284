package plan

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestPlanOfAnUnchangedFleetIsEmpty(t *testing.T) {
	g := NewWithT(t)
	p := compute(t, copyFleet(t), copyFleet(t), Options{})
	g.Expect(p.Clusters).To(BeEmpty())
	g.Expect(p.Rejected).To(BeFalse())
	g.Expect(text(t, p)).To(Equal("Plan: no change to offloading, peerings or offers.\n"))
}
