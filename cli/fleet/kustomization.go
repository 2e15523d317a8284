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
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"
)

// kustomizationNames are the file names kustomize accepts, in its order.
var kustomizationNames = []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}

// newKustomization starts a folder's kustomization when it has none.
const newKustomization = `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: []
`

// KustomizationFile returns the kustomization file of dir, or the path of the
// one to create when there is none.
func KustomizationFile(dir string) string {
	for _, n := range kustomizationNames {
		if p := filepath.Join(dir, n); exists(p) {
			return p
		}
	}
	return filepath.Join(dir, kustomizationNames[0])
}

// Resources lists the entries of the kustomization's resources field.
func Resources(dir string) ([]string, error) {
	raw, err := os.ReadFile(KustomizationFile(dir))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.Unmarshal(raw, &k); err != nil {
		return nil, fmt.Errorf("%s: %w", KustomizationFile(dir), err)
	}
	return k.Resources, nil
}

// withResource returns the kustomization with entry added to (add) or removed
// from (!add) its resources, keeping the comments and the other fields. It
// reports whether anything changed.
func withResource(raw []byte, entry string, add bool) ([]byte, bool, error) {
	if len(strings.TrimSpace(string(raw))) == 0 {
		raw = []byte(newKustomization)
	}
	rn, err := kyaml.Parse(string(raw))
	if err != nil {
		return nil, false, err
	}
	seq, err := rn.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "resources"))
	if err != nil {
		return nil, false, fmt.Errorf("resources: %w", err)
	}
	node := seq.YNode()
	// An empty flow list ("resources: []") would stay flow style once filled.
	node.Style = 0
	i := slices.IndexFunc(node.Content, func(n *kyaml.Node) bool { return n.Value == entry })
	switch {
	case add && i >= 0, !add && i < 0:
		return raw, false, nil
	case add:
		node.Content = append(node.Content, &kyaml.Node{Kind: kyaml.ScalarNode, Value: entry})
	default:
		node.Content = slices.Delete(node.Content, i, i+1)
	}
	out, err := rn.String()
	if err != nil {
		return nil, false, err
	}
	return []byte(out), true, nil
}
