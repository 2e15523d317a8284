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

func TestPlanRejectsANamespaceOffloadingNotNamedOffloading(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "  name: offloading\n", "  name: demo\n")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	rome := changesOf(p, "rome")
	g.Expect(rome).To(ContainElement(Change{Kind: InvalidOffloading, Namespace: "liqo-demo", Rejected: true,
		Message: `NamespaceOffloading "demo": metadata.name must be "offloading", there is one per namespace: rename it`}))
	// The one named offloading is gone, so the namespace is unoffloaded too.
	g.Expect(rome).To(ContainElement(HaveField("Kind", Unoffload)))
}

func TestPlanRejectsAnInvalidClusterSelector(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	selectRegion(t, head, "north")
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "operator: In", "operator: Near")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Kind).To(Equal(InvalidOffloading))
	g.Expect(rome[0].Message).To(HavePrefix("spec.clusterSelector is invalid"))
}

func TestPlanRejectsAnUnknownPodStrategy(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "podOffloadingStrategy: LocalAndRemote", "podOffloadingStrategy: Anywhere")
	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(changesOf(p, "rome")).To(ConsistOf(HaveField("Message", ContainSubstring(`spec.podOffloadingStrategy "Anywhere" is not LocalAndRemote, Local or Remote`))))
}

func TestPlanRejectsAFolderThatDoesNotBuild(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	appendResource(t, head, "rome", "missing.yaml")
	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(changesOf(p, "rome")).To(ConsistOf(And(HaveField("Kind", BuildFailed), HaveField("Rejected", true),
		HaveField("Message", HavePrefix("rome/config does not build: ")), HaveField("Message", ContainSubstring("'rome/config/missing.yaml'")))))
}

func TestPlanRejectsAChangedPeerClusterID(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/foreigncluster-milan.yaml", "clusterID: "+milanID, "clusterID: "+naplesID)
	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(changesOf(p, "rome")).To(ContainElement(And(HaveField("Kind", InvalidPeer),
		HaveField("Message", ContainSubstring("spec.clusterIdentity.clusterID is immutable")))))
}

func TestPlanRejectsLiqoFieldsSpillwayDoesNotImplement(t *testing.T) {
	tests := []struct{ from, to, want string }{
		{"peeringType: OutOfBand", "peeringType: InBand", "spec.peeringType InBand is not implemented"},
		{`incomingPeeringEnabled: "No"`, `incomingPeeringEnabled: "Yes"`, "spec.incomingPeeringEnabled Yes is not supported"},
		{"peeringType: OutOfBand", "peeringType: OutOfBand\n  insecureSkipTLSVerify: true", "spec.insecureSkipTLSVerify true is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			g := NewWithT(t)
			base, head := copyFleet(t), copyFleet(t)
			edit(t, head, "rome/config/foreigncluster-milan.yaml", tt.from, tt.to)
			p := compute(t, base, head, Options{})
			g.Expect(p.Rejected).To(BeTrue())
			g.Expect(changesOf(p, "rome")).To(ContainElement(And(HaveField("Kind", InvalidPeer),
				HaveField("Message", ContainSubstring(tt.want)))))
		})
	}
}
