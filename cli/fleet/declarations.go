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

package fleet

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Declaration is one object written in a file of a config folder.
type Declaration struct {
	// File is the file name relative to the folder.
	File       string
	APIVersion string
	Kind       string
	Namespace  string
	Name       string
}

// Declarations lists the objects of the plain files a folder's kustomization
// names; nested kustomizations and remote resources are not opened. It lets
// a command find the file that already declares an object.
func Declarations(dir string) ([]Declaration, error) {
	entries, err := Resources(dir)
	if err != nil {
		return nil, err
	}
	var out []Declaration
	for _, entry := range entries {
		if u, err := url.Parse(entry); err == nil && u.Scheme != "" {
			continue
		}
		p := filepath.Join(dir, entry)
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) || (err == nil && st.IsDir()) {
			continue
		}
		if err != nil {
			return nil, err
		}
		docs, err := ReadDocuments(p)
		if err != nil {
			return nil, err
		}
		for _, doc := range docs {
			var obj struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
				Metadata   struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if yaml.Unmarshal(doc, &obj) != nil {
				continue
			}
			out = append(out, Declaration{File: entry, APIVersion: obj.APIVersion, Kind: obj.Kind,
				Namespace: obj.Metadata.Namespace, Name: obj.Metadata.Name})
		}
	}
	return out, nil
}
