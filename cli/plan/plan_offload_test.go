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

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

const webOffloading = `apiVersion: v1
kind: Namespace
metadata:
  name: web
---
apiVersion: offloading.liqo.io/v1alpha1
kind: NamespaceOffloading
metadata:
  name: offloading
  namespace: web
spec:
  podOffloadingStrategy: Remote
`

func TestPlanListsANewOffloadWithItsPeersAndRemoteName(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	addProvider(t, base, "naples", naplesID, "south")
	addProvider(t, head, "naples", naplesID, "south")
	write(t, head, "rome/config/offloading-web.yaml", webOffloading)
	appendResource(t, head, "rome", "offloading-web.yaml")

	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse())
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Kind).To(Equal(Offload))
	g.Expect(rome[0].Namespace).To(Equal("web"))
	remote := policies.RemoteNamespaceName(offloadingv1alpha1.DefaultNameMappingStrategy, "web", "rome", romeID)
	g.Expect(rome[0].Message).To(Equal("offloaded to milan, naples as " + remote +
		"; pods run on the selected virtual nodes only (Remote)"))
	g.Expect(text(t, p)).To(ContainSubstring("  + web: offloaded to milan, naples as web-rome-"))
}

// A peer whose provider has no offer for the consumer has no virtual node,
// so no namespace goes there.
func TestPlanSkipsPeersWithoutAnOffer(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	write(t, head, "milan/config/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- pushsecret-rome.yaml\n")

	p := compute(t, base, head, Options{})
	g.Expect(changesOf(p, "milan")).To(ConsistOf(HaveField("Kind", OfferWithdrawn)))
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(1))
	g.Expect(rome[0].Kind).To(Equal(Move))
	g.Expect(rome[0].Message).To(ContainSubstring("moves from milan to no peer"))
	g.Expect(rome[0].Message).To(ContainSubstring("none of rome's peers (milan) offers it resources"))
}

func TestPlanListsAnUnoffloadAndTheNamespacePrune(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	write(t, head, "rome/config/kustomization.yaml", `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- foreigncluster-milan.yaml
- externalsecret-milan.yaml
`)
	p := compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse())
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(2))
	remote := policies.RemoteNamespaceName(offloadingv1alpha1.DefaultNameMappingStrategy, "liqo-demo", "rome", romeID)
	g.Expect(rome[0]).To(Equal(Change{Kind: Unoffload, Namespace: "liqo-demo",
		Message: "unoffloaded from milan: " + remote + " is deleted there, with every pod it runs"}))
	// The example's Namespace has no prune annotation: Flux deletes it.
	g.Expect(rome[1].Kind).To(Equal(NamespaceDeleted))
	g.Expect(rome[1].Message).To(ContainSubstring("kustomize.toolkit.fluxcd.io/prune: disabled"))
}
