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

// Package crdtest lets the API packages' unit tests check the generated CRDs
// the way a real API server would, without starting one: the CRD itself goes
// through the API server's CRD validation (structural schema, list-map keys,
// CEL compilation and cost), and sample objects go through pruning,
// defaulting, OpenAPI validation and CEL validation. It is test support
// only; nothing outside tests imports it.
package crdtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// BasesDir is the directory controller-gen writes the CRDs into, found from
// this source file so tests work from any package directory.
func BasesDir() string {
	_, self, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(self), "..", "..", "..", "kustomize", "crd", "bases")
}

// Load reads and strictly decodes one generated CRD file from BasesDir, so a
// field the Go type does not know about is an error rather than silently
// dropped.
func Load(file string) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := os.ReadFile(filepath.Join(BasesDir(), file))
	if err != nil {
		return nil, err
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return crd, nil
}

// toInternal applies the v1 defaults the API server would apply and converts
// to the internal version the validation code works on.
func toInternal(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsinternal.CustomResourceDefinition, error) {
	scheme := k8sruntime.NewScheme()
	if err := apiextensionsv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiextensionsinternal.AddToScheme(scheme); err != nil {
		return nil, err
	}
	in := crd.DeepCopy()
	scheme.Default(in)
	out := &apiextensionsinternal.CustomResourceDefinition{}
	if err := scheme.Convert(in, out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// ValidateCRD runs the API server's own create-time validation of a CRD. An
// empty list means "kubectl apply" of the CRD would be accepted (size limits
// of the apply annotation aside).
func ValidateCRD(crd *apiextensionsv1.CustomResourceDefinition) (field.ErrorList, error) {
	internal, err := toInternal(crd)
	if err != nil {
		return nil, err
	}
	for _, v := range internal.Spec.Versions {
		if v.Storage {
			internal.Status.StoredVersions = []string{v.Name}
		}
	}
	return crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal), nil
}

// Admission mimics what the API server does to a custom resource of one CRD
// version on create and update, minus metadata and storage.
type Admission struct {
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator
}

// NewAdmission prepares an Admission for the named version of crd.
func NewAdmission(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Admission, error) {
	internal, err := toInternal(crd)
	if err != nil {
		return nil, err
	}
	// The internal form hoists a schema shared by all versions to
	// spec.validation; this helper looks in both places.
	validation, err := apiextensionsinternal.GetSchemaForVersion(internal, version)
	if err != nil {
		return nil, err
	}
	if validation != nil && validation.OpenAPIV3Schema != nil {
		s, err := structuralschema.NewStructural(validation.OpenAPIV3Schema)
		if err != nil {
			return nil, err
		}
		sv, _, err := apiservervalidation.NewSchemaValidator(validation.OpenAPIV3Schema)
		if err != nil {
			return nil, err
		}
		return &Admission{
			structural: s,
			schema:     sv,
			cel:        cel.NewValidator(s, true, celconfig.PerCallLimit),
		}, nil
	}
	return nil, fmt.Errorf("version %q with a schema not found in %s", version, crd.Name)
}

// Decode turns YAML into the unstructured form the API server works on,
// with whole numbers as int64 (not float64) as the API server decodes them.
func Decode(manifest string) (map[string]any, error) {
	data, err := yaml.YAMLToJSON([]byte(manifest))
	if err != nil {
		return nil, err
	}
	obj := map[string]any{}
	if err := utiljson.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	return obj, nil
}

// MustDecode is Decode for manifests written in the tests themselves.
func MustDecode(manifest string) map[string]any {
	obj, err := Decode(manifest)
	if err != nil {
		panic(err)
	}
	return obj
}

// Default prunes unknown fields and applies schema defaults in place, as the
// API server does when decoding a request or reading from storage.
func (a *Admission) Default(obj map[string]any) {
	pruning.Prune(obj, a.structural, true)
	structuraldefaulting.Default(obj, a.structural)
}

// Validate defaults obj and validates it against the schema, its list-type
// rules and its CEL rules. oldObj is nil for a create; for an update it is the stored object,
// which enables transition rules (those using oldSelf).
func (a *Admission) Validate(obj, oldObj map[string]any) field.ErrorList {
	a.Default(obj)
	var errs field.ErrorList
	if oldObj == nil {
		errs = apiservervalidation.ValidateCustomResource(nil, obj, a.schema)
	} else {
		a.Default(oldObj)
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, obj, oldObj, a.schema)
	}
	// Uniqueness of list-map keys and set items is checked apart from the
	// OpenAPI validation, as the API server does.
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, a.structural, obj)...)
	if a.cel != nil {
		var old any
		if oldObj != nil {
			old = oldObj
		}
		celErrs, _ := a.cel.Validate(context.Background(), nil, a.structural, obj, old, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	return errs
}

// Version returns the named version of crd, or nil.
func Version(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// Column is the part of a printer column that kubectl output depends on.
type Column struct {
	Name     string
	JSONPath string
	Priority int32
}

// Columns lists the printer columns of a CRD version in order.
func Columns(v *apiextensionsv1.CustomResourceDefinitionVersion) []Column {
	out := make([]Column, 0, len(v.AdditionalPrinterColumns))
	for _, c := range v.AdditionalPrinterColumns {
		out = append(out, Column{Name: c.Name, JSONPath: c.JSONPath, Priority: c.Priority})
	}
	return out
}

// Rules collects every x-kubernetes-validations rule in a schema, keyed by
// the dotted path of the node that carries it ("" is the resource root,
// "spec.clusterIdentity.clusterID" a nested field, "[]" an array item and
// "{}" a map value).
func Rules(s *apiextensionsv1.JSONSchemaProps) map[string][]apiextensionsv1.ValidationRule {
	out := map[string][]apiextensionsv1.ValidationRule{}
	var walk func(path string, s *apiextensionsv1.JSONSchemaProps)
	join := func(path, child string) string {
		if path == "" {
			return child
		}
		return path + "." + child
	}
	walk = func(path string, s *apiextensionsv1.JSONSchemaProps) {
		if s == nil {
			return
		}
		if len(s.XValidations) > 0 {
			out[path] = append(out[path], s.XValidations...)
		}
		for name, p := range s.Properties {
			walk(join(path, name), &p)
		}
		if s.Items != nil {
			walk(join(path, "[]"), s.Items.Schema)
		}
		if s.AdditionalProperties != nil {
			walk(join(path, "{}"), s.AdditionalProperties.Schema)
		}
	}
	walk("", s)
	return out
}

// MissingFields lists the JSON fields of a Go type that have no property in
// the schema, which means the CRDs were not regenerated after the type
// changed. It descends into the types of this module only; fields whose types
// come from other modules (corev1, metav1) are checked to exist but not
// walked, since their schemas are controller-gen's business.
func MissingFields(t reflect.Type, s *apiextensionsv1.JSONSchemaProps) []string {
	var missing []string
	var walk func(path string, t reflect.Type, s *apiextensionsv1.JSONSchemaProps)
	walk = func(path string, t reflect.Type, s *apiextensionsv1.JSONSchemaProps) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if !strings.HasPrefix(t.PkgPath(), modulePath) {
			return
		}
		switch t.Kind() {
		case reflect.Slice:
			if s.Items != nil && s.Items.Schema != nil {
				walk(path+"[]", t.Elem(), s.Items.Schema)
			}
			return
		case reflect.Map:
			if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
				walk(path+"{}", t.Elem(), s.AdditionalProperties.Schema)
			}
			return
		case reflect.Struct:
		default:
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" && f.Anonymous {
				ft := f.Type
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				// Inlined structs from other modules (TypeMeta, ObjectMeta's
				// siblings, meta.ReconcileRequestStatus) contribute their fields
				// directly; walk them regardless of module.
				for j := 0; j < ft.NumField(); j++ {
					g := ft.Field(j)
					gname, _, _ := strings.Cut(g.Tag.Get("json"), ",")
					if gname == "" || gname == "-" {
						continue
					}
					if _, ok := s.Properties[gname]; !ok {
						missing = append(missing, path+"."+gname)
					}
				}
				continue
			}
			child, ok := s.Properties[name]
			if !ok {
				missing = append(missing, path+"."+name)
				continue
			}
			walk(path+"."+name, f.Type, &child)
		}
	}
	walk("", t, s)
	return missing
}

// modulePath prefixes the import paths of this module's packages.
const modulePath = "github.com/spillway-dev/spillway/"
