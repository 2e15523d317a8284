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

package v1alpha1_test

import (
	"reflect"
	"testing"

	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/spillway-dev/spillway/api/internal/crdtest"
	. "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

const crdFile = "offloading.liqo.io_namespaceoffloadings.yaml"

// seed is the lab's manifest, with the clusterSelector written as a standard
// NodeSelector.
const seed = `apiVersion: offloading.liqo.io/v1alpha1
kind: NamespaceOffloading
metadata: {name: offloading, namespace: liqo}
spec:
  namespaceMappingStrategy: DefaultName
  podOffloadingStrategy: Local
  clusterSelector:
    nodeSelectorTerms:
    - matchExpressions:
      - {key: liqo.io/type, operator: In, values: [virtual-node]}
`

var (
	_ conditions.Setter = &NamespaceOffloading{}
	_ conditions.Getter = &NamespaceOffloading{}
)

func admission(g *WithT) *crdtest.Admission {
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	a, err := crdtest.NewAdmission(crd, "v1alpha1")
	g.Expect(err).NotTo(HaveOccurred())
	return a
}

func TestCRDNamesAndScope(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crd.Name).To(Equal("namespaceoffloadings.offloading.liqo.io"))
	g.Expect(crd.Spec.Group).To(Equal(GroupVersion.Group))
	g.Expect(string(crd.Spec.Scope)).To(Equal("Namespaced"))
	g.Expect(crd.Spec.Names.ShortNames).To(Equal([]string{"nsof"}))
	v := crdtest.Version(crd, GroupVersion.Version)
	g.Expect(v).NotTo(BeNil())
	g.Expect(v.Subresources).NotTo(BeNil())
	g.Expect(v.Subresources.Status).NotTo(BeNil())
}

func TestPrinterColumns(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crdtest.Columns(crdtest.Version(crd, "v1alpha1"))).To(Equal([]crdtest.Column{
		{Name: "Mapping", JSONPath: ".spec.namespaceMappingStrategy"},
		{Name: "Pod Strategy", JSONPath: ".spec.podOffloadingStrategy"},
		{Name: "Phase", JSONPath: ".status.offloadingPhase"},
		{Name: "Remote Namespace", JSONPath: ".status.remoteNamespaceName"},
		{Name: "Age", JSONPath: ".metadata.creationTimestamp"},
	}))
}

func TestCRDIsInSyncWithGoTypes(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crdtest.MissingFields(reflect.TypeOf(NamespaceOffloading{}), crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema)).To(BeEmpty())
}

func TestCELRulesArePresent(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	rules := crdtest.Rules(crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema)

	g.Expect(rules[""]).To(HaveLen(1))
	g.Expect(rules[""][0].Rule).To(Equal("self.metadata.name == 'offloading'"))
	g.Expect(rules[""][0].Message).To(ContainSubstring("'offloading'"))
	g.Expect(rules["spec.namespaceMappingStrategy"]).To(HaveLen(1))
	g.Expect(rules["spec.namespaceMappingStrategy"][0].Rule).To(Equal("self == oldSelf"))
	g.Expect(rules["spec.namespaceMappingStrategy"][0].Message).To(Equal(
		"spec.namespaceMappingStrategy is immutable: delete and recreate the NamespaceOffloading to change it"))
}

// The selector must be the standard NodeSelector schema, not a stub.
func TestClusterSelectorIsAStandardNodeSelector(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	sel := crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema.Properties["spec"].Properties["clusterSelector"]
	g.Expect(sel.Required).To(Equal([]string{"nodeSelectorTerms"}))
	term := sel.Properties["nodeSelectorTerms"].Items.Schema
	g.Expect(term.Properties).To(HaveKey("matchExpressions"))
	g.Expect(term.Properties).To(HaveKey("matchFields"))
	g.Expect(term.Properties["matchExpressions"].Items.Schema.Required).To(ConsistOf("key", "operator"))
}

func TestSeedIsAcceptedAndDefaulted(t *testing.T) {
	g := NewWithT(t)
	obj := crdtest.MustDecode(seed)
	g.Expect(admission(g).Validate(obj, nil)).To(BeEmpty())
	g.Expect(obj).To(HaveKeyWithValue("status", HaveKeyWithValue("observedGeneration", BeNumerically("==", -1))))
	g.Expect(obj).To(HaveKeyWithValue("spec", HaveKeyWithValue("clusterSelector",
		HaveKeyWithValue("nodeSelectorTerms", HaveLen(1)))))

	no := &NamespaceOffloading{}
	g.Expect(yaml.UnmarshalStrict([]byte(seed), no)).To(Succeed())
	g.Expect(no.Spec.PodOffloadingStrategy).To(Equal(LocalPodOffloadingStrategy))
	g.Expect(no.Spec.ClusterSelector.NodeSelectorTerms[0].MatchExpressions).To(Equal([]corev1.NodeSelectorRequirement{{
		Key: "liqo.io/type", Operator: corev1.NodeSelectorOpIn, Values: []string{"virtual-node"},
	}}))
	g.Expect(no.SelectsEveryCluster()).To(BeFalse())
}

// An object with no spec at all gets the documented defaults.
func TestEmptySpecIsDefaulted(t *testing.T) {
	g := NewWithT(t)
	obj := crdtest.MustDecode("apiVersion: offloading.liqo.io/v1alpha1\nkind: NamespaceOffloading\nmetadata: {name: offloading, namespace: app}\n")
	g.Expect(admission(g).Validate(obj, nil)).To(BeEmpty())
	g.Expect(obj["spec"]).To(And(
		HaveKeyWithValue("namespaceMappingStrategy", string(DefaultNameMappingStrategy)),
		HaveKeyWithValue("podOffloadingStrategy", string(LocalAndRemotePodOffloadingStrategy)),
	))
	g.Expect((&NamespaceOffloading{}).SelectsEveryCluster()).To(BeTrue())
}

func TestAdmission(t *testing.T) {
	cases := []struct {
		name     string
		manifest string
		wantErr  string
	}{
		{name: "wrong name", manifest: "metadata: {name: mine, namespace: app}\nspec: {}", wantErr: "must be named 'offloading'"},
		{name: "bad mapping", manifest: "metadata: {name: offloading, namespace: app}\nspec: {namespaceMappingStrategy: Random}", wantErr: "spec.namespaceMappingStrategy: Unsupported value"},
		{name: "bad pod strategy", manifest: "metadata: {name: offloading, namespace: app}\nspec: {podOffloadingStrategy: Anywhere}", wantErr: "spec.podOffloadingStrategy: Unsupported value"},
		{name: "selector without terms", manifest: "metadata: {name: offloading, namespace: app}\nspec: {clusterSelector: {}}", wantErr: "spec.clusterSelector.nodeSelectorTerms: Required"},
		{name: "selector with empty terms", manifest: "metadata: {name: offloading, namespace: app}\nspec: {clusterSelector: {nodeSelectorTerms: []}}"},
		{name: "expression without operator", manifest: "metadata: {name: offloading, namespace: app}\nspec: {clusterSelector: {nodeSelectorTerms: [{matchExpressions: [{key: a}]}]}}", wantErr: "operator: Required"},
		{name: "remote and same name", manifest: "metadata: {name: offloading, namespace: app}\nspec: {namespaceMappingStrategy: EnforceSameName, podOffloadingStrategy: Remote}"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := crdtest.MustDecode("apiVersion: offloading.liqo.io/v1alpha1\nkind: NamespaceOffloading\n" + tc.manifest)
			errs := admission(g).Validate(obj, nil)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty())
				return
			}
			g.Expect(errs.ToAggregate()).To(MatchError(ContainSubstring(tc.wantErr)))
		})
	}
}

func TestMappingStrategyIsImmutable(t *testing.T) {
	g := NewWithT(t)
	a := admission(g)

	old := crdtest.MustDecode(seed)
	changed := crdtest.MustDecode(seed)
	changed["spec"].(map[string]any)["namespaceMappingStrategy"] = "EnforceSameName"
	g.Expect(a.Validate(changed, old).ToAggregate()).To(MatchError(ContainSubstring(
		"spec.namespaceMappingStrategy is immutable: delete and recreate the NamespaceOffloading to change it")))

	// Other fields stay mutable, and dropping the field keeps the default.
	old = crdtest.MustDecode(seed)
	other := crdtest.MustDecode(seed)
	other["spec"].(map[string]any)["podOffloadingStrategy"] = "Remote"
	delete(other["spec"].(map[string]any), "namespaceMappingStrategy")
	g.Expect(a.Validate(other, old)).To(BeEmpty())
}

func TestStatusWithRemoteConditionsDecodes(t *testing.T) {
	g := NewWithT(t)
	manifest := seed + `status:
  observedGeneration: 3
  remoteNamespaceName: liqo-home-abcd
  offloadingPhase: SomeFailed
  remoteNamespacesConditions:
    cluster-a:
    - {type: Ready, status: "True", reason: NamespaceCreated, lastTransitionTime: "2026-01-01T00:00:00Z"}
    - {type: OffloadingRequired, status: "True", reason: ClusterSelected}
    cluster-b:
    - {type: Ready, status: "False", reason: NamespaceNameConflict, message: exists}
`
	g.Expect(admission(g).Validate(crdtest.MustDecode(manifest), nil)).To(BeEmpty())

	no := &NamespaceOffloading{}
	g.Expect(yaml.UnmarshalStrict([]byte(manifest), no)).To(Succeed())
	g.Expect(no.Status.OffloadingPhase).To(Equal(SomeFailedOffloadingPhase))
	g.Expect(no.Status.RemoteNamespacesConditions).To(HaveKey("cluster-a"))
	g.Expect(no.Status.RemoteNamespacesConditions["cluster-b"][0].Reason).To(Equal(NamespaceNameConflictReason))

	cp := no.DeepCopy()
	cp.Status.RemoteNamespacesConditions["cluster-a"][0].Status = "False"
	g.Expect(string(no.Status.RemoteNamespacesConditions["cluster-a"][0].Status)).To(Equal("True"))

	bad := crdtest.MustDecode(seed + "status:\n  offloadingPhase: Sleeping\n")
	g.Expect(admission(g).Validate(bad, nil).ToAggregate()).To(MatchError(ContainSubstring("status.offloadingPhase")))
	dup := crdtest.MustDecode(seed + "status:\n  remoteNamespacesConditions:\n    c: [{type: Ready, status: \"True\"}, {type: Ready, status: \"False\"}]\n")
	g.Expect(admission(g).Validate(dup, nil).ToAggregate()).To(MatchError(ContainSubstring("Duplicate value")))
}

func TestScheme(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	g.Expect(AddToScheme(s)).To(Succeed())
	gvks, _, err := s.ObjectKinds(&NamespaceOffloading{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(gvks).To(ConsistOf(GroupVersion.WithKind("NamespaceOffloading")))
	g.Expect(s.Recognizes(GroupVersion.WithKind("NamespaceOffloadingList"))).To(BeTrue())
	g.Expect(RequiredName).To(Equal("offloading"))
}
