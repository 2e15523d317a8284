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

// Package manifests builds the objects the CLI writes into a fleet repository
// and renders them the way people keep them in git: YAML documents with a
// comment saying what each one is for, no status, no server-set fields.
package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Document is one object of a manifest file and the comment above it.
type Document struct {
	// Comment is written above the object, one "# " line per line.
	Comment string
	Object  runtime.Object
}

// File is one manifest file of a config folder.
type File struct {
	// Name is the file name inside the config folder.
	Name      string
	Documents []Document
}

// clean turns an object into the map written to git: without status and
// without the zero creationTimestamp typed objects carry, without an empty
// spec.
func clean(obj runtime.Object) (map[string]any, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	if spec, ok := m["spec"].(map[string]any); ok && len(spec) == 0 {
		delete(m, "spec")
	}
	if meta, ok := m["metadata"].(map[string]any); ok {
		delete(meta, "creationTimestamp")
	}
	return m, nil
}

// YAML renders the file's documents separated by "---".
func (f File) YAML() ([]byte, error) {
	var b bytes.Buffer
	for i, d := range f.Documents {
		if i > 0 {
			b.WriteString("---\n")
		}
		for _, l := range strings.Split(strings.TrimRight(d.Comment, "\n"), "\n") {
			if l != "" {
				b.WriteString("# " + l + "\n")
			}
		}
		m, err := clean(d.Object)
		if err != nil {
			return nil, err
		}
		out, err := yaml.Marshal(m)
		if err != nil {
			return nil, err
		}
		b.Write(out)
	}
	return b.Bytes(), nil
}

// Objects returns the objects of several files, in order.
func Objects(files ...File) []runtime.Object {
	var out []runtime.Object
	for _, f := range files {
		for _, d := range f.Documents {
			out = append(out, d.Object)
		}
	}
	return out
}

// Print renders files for --output: "yaml" gives the files' documents, "json"
// a v1 List, as kubectl prints several objects.
func Print(format string, files ...File) ([]byte, error) {
	switch format {
	case "yaml":
		var b bytes.Buffer
		for i, f := range files {
			if i > 0 {
				b.WriteString("---\n")
			}
			out, err := f.YAML()
			if err != nil {
				return nil, err
			}
			b.Write(out)
		}
		return b.Bytes(), nil
	case "json":
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{}}
		items := []any{}
		for _, o := range Objects(files...) {
			m, err := clean(o)
			if err != nil {
				return nil, err
			}
			items = append(items, m)
		}
		list["items"] = items
		out, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return nil, err
		}
		return append(out, '\n'), nil
	}
	return nil, fmt.Errorf("unknown output format %q", format)
}

// newUnstructured starts an object of a kind whose Go types are not a
// dependency of Spillway (External Secrets).
func newUnstructured(apiVersion, kind, namespace, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}
