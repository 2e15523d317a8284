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

// IDs of the providers a broker test gives naples.
const (
	turinID = "1a7e3c55-0b2d-4f6e-8c9a-3d4e5f6a7b01"
	bariID  = "2b8f4d66-1c3e-4a7f-9dab-4e5f6a7b8c02"
)

// makeBroker turns naples' offer to rome into a broker's and gives naples
// two providers: turin, a plain one, and bari, whose offer to naples is
// itself a broker's (so naples never resells it).
func makeBroker(t *testing.T, fleetDir string) {
	t.Helper()
	edit(t, fleetDir, "naples/config/resourceoffer-rome.yaml", "  clusterName: rome\n", "  clusterName: rome\n  broker: true\n")
	addOffer(t, fleetDir, "turin", turinID, "naples", naplesID, "")
	addOffer(t, fleetDir, "bari", bariID, "naples", naplesID, "  broker: true\n")
}

func TestPlanShowsWhereABrokerRunsANamespacesPods(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	for _, dir := range []string{base, head} {
		addProvider(t, dir, "naples", naplesID, "south")
		makeBroker(t, dir)
	}
	write(t, head, "rome/config/offloading-web.yaml", webOffloading)
	appendResource(t, head, "rome", "offloading-web.yaml")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse(), text(t, p))
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Kind).To(Equal(Offload))
	g.Expect(rome[0].Message).To(HavePrefix("offloaded to milan, naples as "))
	g.Expect(rome[0].Message).To(ContainSubstring("; naples is a broker (spec.broker in naples's offer): its pods run at turin, two hops away"))
	g.Expect(rome[0].Message).NotTo(ContainSubstring("bari"), "a broker never resells another broker's offer")
	g.Expect(rome[0].Message).NotTo(ContainSubstring("milan is a broker"))
}

func TestPlanSaysABrokerWithoutProvidersRunsNothing(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	for _, dir := range []string{base, head} {
		addProvider(t, dir, "naples", naplesID, "south")
		edit(t, dir, "naples/config/resourceoffer-rome.yaml", "  clusterName: rome\n", "  clusterName: rome\n  broker: true\n")
	}
	write(t, head, "rome/config/offloading-web.yaml", webOffloading)
	appendResource(t, head, "rome", "offloading-web.yaml")

	rome := changesOf(compute(t, base, head, Options{}), "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Message).To(ContainSubstring("naples is a broker (spec.broker in naples's offer), but its folder declares no provider offering it resources"))
}

func TestPlanSaysWhenAnOfferBecomesABrokers(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	addProvider(t, base, "naples", naplesID, "south")
	addProvider(t, head, "naples", naplesID, "south")
	edit(t, head, "naples/config/resourceoffer-rome.yaml", "  clusterName: rome\n", "  clusterName: rome\n  broker: true\n")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse(), text(t, p))
	g.Expect(changesOf(p, "naples")).To(ContainElement(And(
		HaveField("Kind", OfferChange),
		HaveField("Message", ContainSubstring("offer to rome becomes a broker's (spec.broker)")))))

	back := compute(t, head, base, Options{})
	g.Expect(changesOf(back, "naples")).To(ContainElement(
		HaveField("Message", ContainSubstring("offer to rome stops being a broker's"))))
}

func TestPlanShowsAChangeOfExposedLabelKeys(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	for _, dir := range []string{base, head} {
		addProvider(t, dir, "naples", naplesID, "south")
		makeBroker(t, dir)
	}
	edit(t, head, "naples/config/resourceoffer-rome.yaml", "  broker: true\n", "  broker: true\n  exposedLabelKeys: [topology.kubernetes.io/zone]\n")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse(), text(t, p))
	g.Expect(changesOf(p, "naples")).To(ConsistOf(And(
		HaveField("Kind", OfferChange),
		HaveField("Message", HavePrefix("label keys exposed to rome: none → [topology.kubernetes.io/zone] (spec.exposedLabelKeys")))))
}

func TestPlanNamesTheExposedLabelKeysOfANewBrokerOffer(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	addProvider(t, head, "naples", naplesID, "south")
	makeBroker(t, head)
	edit(t, head, "naples/config/resourceoffer-rome.yaml", "  broker: true\n", "  broker: true\n  exposedLabelKeys: [topology.kubernetes.io/zone]\n")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse(), text(t, p))
	g.Expect(changesOf(p, "naples")).To(ContainElement(And(
		HaveField("Kind", OfferAdded),
		HaveField("Message", HaveSuffix("and the label keys [topology.kubernetes.io/zone] from its providers' virtual nodes where they agree (spec.exposedLabelKeys)")))))
}

func TestPlanRejectsExposedLabelKeysWithoutBroker(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	addProvider(t, base, "naples", naplesID, "south")
	addProvider(t, head, "naples", naplesID, "south")
	edit(t, head, "naples/config/resourceoffer-rome.yaml", "  clusterName: rome\n", "  clusterName: rome\n  exposedLabelKeys: [topology.kubernetes.io/zone]\n")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(changesOf(p, "naples")).To(ContainElement(And(
		HaveField("Kind", InvalidOffer),
		HaveField("Message", ContainSubstring("spec.exposedLabelKeys needs spec.broker: true")))))
}
