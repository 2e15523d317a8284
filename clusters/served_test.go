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

package clusters_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

// The newest releases the module proxy serves of the controllers the fleet's
// manifests are written for. Their CRD bundles are read from the module
// cache, never copied into this repository.
var crdSources = []struct {
	module, version string
	// files are globs inside the module.
	files []string
}{
	{"github.com/external-secrets/external-secrets", "v1.3.2", []string{"deploy/crds/bundle.yaml"}},
	{"github.com/fluxcd/kustomize-controller", "v1.9.6", []string{"config/crd/bases/*.yaml"}},
	{"github.com/fluxcd/source-controller", "v1.9.6", []string{"config/crd/bases/*.yaml"}},
}

// servedKinds maps group/version/Kind to its schema (nil for Spillway's
// own, checked by strict decoding elsewhere) for every CRD kind the target
// API servers serve; Kubernetes' own kinds come from client-go's scheme.
type servedKinds map[schema.GroupVersionKind]*apiextensionsv1.JSONSchemaProps

// moduleDir downloads (or finds in the module cache) one module version.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", module+"@"+version)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var m struct{ Dir, Error string }
	_ = json.Unmarshal(out, &m)
	if err != nil || m.Dir == "" {
		t.Skipf("cannot download %s@%s to read its CRDs (offline?): %v %s %s", module, version, err, m.Error, stderr.String())
	}
	return m.Dir
}

// addCRDs records the served versions of every CRD in the YAML stream,
// with their schemas when withSchemas.
func (s servedKinds) addCRDs(t *testing.T, file string, withSchemas bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := dec.Decode(&crd); errors.Is(err, io.EOF) {
			return
		} else if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			var props *apiextensionsv1.JSONSchemaProps
			if withSchemas && v.Schema != nil {
				props = v.Schema.OpenAPIV3Schema
			}
			s[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = props
		}
	}
}

func (s servedKinds) serves(gvk schema.GroupVersionKind) bool {
	_, crd := s[gvk]
	return crd || clientgoscheme.Scheme.Recognizes(gvk) || gvk == apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition")
}

func loadServedKinds(t *testing.T) servedKinds {
	t.Helper()
	s := servedKinds{}
	for _, src := range crdSources {
		dir := moduleDir(t, src.module, src.version)
		for _, glob := range src.files {
			files, err := filepath.Glob(filepath.Join(dir, glob))
			if err != nil || len(files) == 0 {
				t.Fatalf("%s@%s has no %s: %v", src.module, src.version, glob, err)
			}
			for _, f := range files {
				s.addCRDs(t, f, true)
			}
		}
	}
	ours, err := filepath.Glob(filepath.Join(root, "kustomize", "crd", "bases", "*.yaml"))
	if err != nil || len(ours) == 0 {
		t.Fatalf("no CRDs in kustomize/crd/bases: %v", err)
	}
	for _, f := range ours {
		s.addCRDs(t, f, false)
	}
	return s
}

// manifest is what the check reads of each document.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		// A Flux Kustomization's health checks name kinds too.
		HealthChecks []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		} `json:"healthChecks"`
	} `json:"spec"`
}

// Every object under clusters/ and kustomize/ must be of a version that the
// newest External Secrets and Flux serve, or applying the folder fails
// (ExternalSecret v1beta1 is served: false from External Secrets v1.0).
func TestEveryManifestIsServed(t *testing.T) {
	served := loadServedKinds(t)
	if served.serves(schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1beta1", Kind: "ExternalSecret"}) {
		t.Fatal("the External Secrets bundle serves ExternalSecret v1beta1: is it the v1.x bundle?")
	}
	var sources []string
	for _, src := range crdSources {
		sources = append(sources, src.module+"@"+src.version)
	}
	checked, validated := 0, 0
	for _, top := range []string{".", filepath.Join(root, "kustomize")} {
		err := filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, doc := range strings.Split(string(data), "\n---\n") {
				var m manifest
				if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
					t.Errorf("%s, document %d: %v", path, i, err)
					continue
				}
				gv, err := schema.ParseGroupVersion(m.APIVersion)
				if err != nil || m.Kind == "" {
					t.Errorf("%s, document %d: apiVersion %q kind %q", path, i, m.APIVersion, m.Kind)
					continue
				}
				if gv.Group == "kustomize.config.k8s.io" {
					continue // kustomize's own files, never applied
				}
				checked++
				gvk := gv.WithKind(m.Kind)
				if !served.serves(gvk) {
					t.Errorf("%s: %s %s is not served by Kubernetes, Spillway's CRDs or %s", path, m.APIVersion, m.Kind, strings.Join(sources, ", "))
				} else if props := served[gvk]; props != nil {
					validated++
					for _, e := range admit(t, props, doc) {
						t.Errorf("%s: %s %s: %s", path, m.APIVersion, m.Kind, e)
					}
				}
				for _, hc := range m.Spec.HealthChecks {
					if gvk := schema.FromAPIVersionAndKind(hc.APIVersion, hc.Kind); !served.serves(gvk) {
						t.Errorf("%s: health check of %s %s, which is not served", path, hc.APIVersion, hc.Kind)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 50 {
		t.Errorf("checked only %d objects: is the walk missing folders?", checked)
	}
	if validated < 30 {
		t.Errorf("validated only %d objects against External Secrets' and Flux's schemas", validated)
	}
	t.Logf("%d objects checked against %d served kinds, %d of them against External Secrets' or Flux's schema", checked, len(served), validated)
}

// admit is what the API server would say of the object: fields the schema
// does not know (pruned silently by the server, so a misspelling is lost),
// then the OpenAPI validation.
func admit(t *testing.T, props *apiextensionsv1.JSONSchemaProps, doc string) []string {
	t.Helper()
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, internal, nil); err != nil {
		t.Fatal(err)
	}
	structural, err := structuralschema.NewStructural(internal)
	if err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatal(err)
	}
	data, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range pruning.PruneWithOptions(obj, structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true}) {
		out = append(out, "unknown field "+p)
	}
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, validator) {
		out = append(out, e.Error())
	}
	return out
}
