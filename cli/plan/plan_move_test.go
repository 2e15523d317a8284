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

// Milan offers rome region north (as in the example fleet), naples south.
func twoProviders(t *testing.T) (base, head string) {
	base, head = copyFleet(t), copyFleet(t)
	for _, f := range []string{base, head} {
		addProvider(t, f, "naples", naplesID, "south")
	}
	return base, head
}

func TestPlanListsNamespacesMovingWithTheSelector(t *testing.T) {
	g := NewWithT(t)
	base, head := twoProviders(t)
	selectRegion(t, base, "north")
	selectRegion(t, head, "south")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse())
	changes := changesOf(p, "rome")
	g.Expect(changes).To(HaveLen(1))
	g.Expect(changes[0].Kind).To(Equal(Move))
	g.Expect(changes[0].Namespace).To(Equal("liqo-demo"))
	g.Expect(changes[0].Message).To(HavePrefix("moves from milan to naples (spec.clusterSelector changed)"))
	g.Expect(changes[0].Message).To(ContainSubstring("created on naples"))
	g.Expect(changes[0].Message).To(ContainSubstring("deleted, with its pods, from milan"))
	g.Expect(text(t, p)).To(ContainSubstring("  ~ liqo-demo: moves from milan to naples"))
}

// The selector stays; the provider relabels its offer. The namespace moves
// all the same, and the plan says why.
func TestPlanListsNamespacesMovingWithAnOffersLabels(t *testing.T) {
	g := NewWithT(t)
	base, head := twoProviders(t)
	selectRegion(t, base, "north")
	selectRegion(t, head, "north")
	edit(t, head, "milan/config/resourceoffer-rome.yaml", "topology.liqo.io/region: north", "topology.liqo.io/region: center")

	p := compute(t, base, head, Options{})
	g.Expect(changesOf(p, "milan")).To(ConsistOf(HaveField("Kind", OfferChange)))
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Kind).To(Equal(Move))
	g.Expect(rome[0].Message).To(HavePrefix("moves from milan to no peer (the peers or the labels they offer changed)"))
	g.Expect(rome[0].Message).To(ContainSubstring("spec.clusterSelector matches none of rome's virtual nodes (milan, naples)"))
}

func TestPlanNotesASelectorChangeThatMovesNothing(t *testing.T) {
	g := NewWithT(t)
	base, head := twoProviders(t)
	selectRegion(t, base, "north")
	selectRegion(t, head, "north,center")

	p := compute(t, base, head, Options{})
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Kind).To(Equal(SelectorChange))
	g.Expect(rome[0].Message).To(ContainSubstring("still selects milan"))
}
