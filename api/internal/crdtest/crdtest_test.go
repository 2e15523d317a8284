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

package crdtest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// The kustomization must list exactly the generated files, or a new kind
// would be generated but never installed.
func TestKustomizationListsEveryBase(t *testing.T) {
	g := NewWithT(t)

	entries, err := os.ReadDir(BasesDir())
	g.Expect(err).NotTo(HaveOccurred())
	var onDisk []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			onDisk = append(onDisk, "bases/"+e.Name())
		}
	}

	data, err := os.ReadFile(filepath.Join(BasesDir(), "..", "kustomization.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	var k struct {
		Resources []string `json:"resources"`
	}
	g.Expect(yaml.Unmarshal(data, &k)).To(Succeed())

	sort.Strings(k.Resources)
	g.Expect(k.Resources).To(Equal(onDisk))
	g.Expect(onDisk).To(HaveLen(5))
}

// Every generated CRD must pass the API server's own CRD validation:
// structural schema, list-map keys required or defaulted, defaults that
// survive pruning, CEL rules that compile within the cost budget.
func TestEveryBaseIsAcceptedByTheAPIServerValidation(t *testing.T) {
	entries, err := os.ReadDir(BasesDir())
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		t.Run(e.Name(), func(t *testing.T) {
			g := NewWithT(t)
			crd, err := Load(e.Name())
			g.Expect(err).NotTo(HaveOccurred())
			errs, err := ValidateCRD(crd)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(errs).To(BeEmpty())
		})
	}
}

// PROJECT must describe the same kinds the CRDs define, so kubebuilder
// tooling and the CRDs agree on group, kind and scope.
func TestProjectFileMatchesCRDs(t *testing.T) {
	g := NewWithT(t)

	data, err := os.ReadFile(filepath.Join(BasesDir(), "..", "..", "..", "PROJECT"))
	g.Expect(err).NotTo(HaveOccurred())
	var project struct {
		Version   string `json:"version"`
		Domain    string `json:"domain"`
		Repo      string `json:"repo"`
		Resources []struct {
			API struct {
				CRDVersion string `json:"crdVersion"`
				Namespaced bool   `json:"namespaced"`
			} `json:"api"`
			Group   string `json:"group"`
			Version string `json:"version"`
			Kind    string `json:"kind"`
			Path    string `json:"path"`
		} `json:"resources"`
	}
	g.Expect(yaml.Unmarshal(data, &project)).To(Succeed())
	g.Expect(project.Version).To(Equal("3"))
	g.Expect(project.Repo).To(Equal("github.com/spillway-dev/spillway"))

	entries, err := os.ReadDir(BasesDir())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(project.Resources).To(HaveLen(len(entries)))
	for _, r := range project.Resources {
		crd, err := Load(r.Group + "." + project.Domain + "_" + strings.ToLower(r.Kind) + "s.yaml")
		g.Expect(err).NotTo(HaveOccurred(), r.Kind)
		g.Expect(crd.Spec.Names.Kind).To(Equal(r.Kind))
		g.Expect(string(crd.Spec.Scope) == "Namespaced").To(Equal(r.API.Namespaced), r.Kind)
		g.Expect(Version(crd, r.Version)).NotTo(BeNil(), r.Kind)
		g.Expect(r.Path).To(Equal(project.Repo + "/api/" + r.Group + "/" + r.Version))
		g.Expect(r.API.CRDVersion).To(Equal("v1"))
	}
}

// ValidateCRD must actually catch broken schemas, or the test above proves
// nothing: a CEL rule on a field that does not exist and a list-map key that
// is neither required nor defaulted are both rejected.
func TestValidateCRDRejectsBrokenSchemas(t *testing.T) {
	g := NewWithT(t)
	crd, err := Load("discovery.liqo.io_foreignclusters.yaml")
	g.Expect(err).NotTo(HaveOccurred())

	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	spec.XValidations = append(spec.XValidations, apiextensionsv1.ValidationRule{Rule: "self.noSuchField == 'x'"})
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec

	status := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
	pc := status.Properties["peeringConditions"]
	pc.Items.Schema.Required = nil
	status.Properties["peeringConditions"] = pc
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"] = status

	errs, err := ValidateCRD(crd)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(errs.ToAggregate()).To(MatchError(And(
		ContainSubstring("noSuchField"),
		ContainSubstring("peeringConditions"),
	)))
}

// kubectl explain shows the descriptions the CRD carries: the kinds people
// write in git must keep their fields' documentation (controller-gen drops
// it with maxDescLen=0).
func TestWrittenKindsExplainTheirFields(t *testing.T) {
	for file, want := range map[string]map[string]string{
		"discovery.liqo.io_foreignclusters.yaml": {
			"clusterIdentity":        "identifies the remote cluster",
			"outgoingPeeringEnabled": "controls whether this cluster consumes resources",
		},
		"sharing.liqo.io_resourceoffers.yaml": {
			"clusterId":         "cluster ID of the consumer this offer is for",
			"sharingPercentage": "offers this percentage",
		},
		"offloading.liqo.io_namespaceoffloadings.yaml": {
			"clusterSelector":          "picks the peers to extend the namespace to",
			"namespaceMappingStrategy": "decides the remote namespace name",
		},
	} {
		t.Run(file, func(t *testing.T) {
			g := NewWithT(t)
			crd, err := Load(file)
			g.Expect(err).NotTo(HaveOccurred())
			for _, v := range crd.Spec.Versions {
				root := v.Schema.OpenAPIV3Schema
				g.Expect(root.Description).NotTo(BeEmpty(), "%s %s: the kind's own description", file, v.Name)
				spec := root.Properties["spec"]
				g.Expect(spec.Description).NotTo(BeEmpty(), "%s %s: spec", file, v.Name)
				for field, text := range want {
					g.Expect(spec.Properties).To(HaveKey(field))
					g.Expect(spec.Properties[field].Description).To(ContainSubstring(text), "%s %s: spec.%s", file, v.Name, field)
				}
			}
		})
	}
}

// Client-side kubectl apply stores the whole object in an annotation limited
// to 256 KiB; a CRD over it can only be applied server-side.
func TestEveryBaseFitsClientSideApply(t *testing.T) {
	entries, err := os.ReadDir(BasesDir())
	if err != nil {
		t.Fatal(err)
	}
	const annotationLimit = 256 * 1024
	for _, e := range entries {
		crd, err := Load(e.Name())
		if err != nil {
			t.Fatal(err)
		}
		j, err := json.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes as JSON", e.Name(), len(j))
		if len(j) >= annotationLimit {
			t.Errorf("%s is %d bytes as JSON, over the %d bytes of kubectl.kubernetes.io/last-applied-configuration", e.Name(), len(j), annotationLimit)
		}
	}
}
