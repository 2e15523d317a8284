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

// Package layers checks that the imports of Spillway's packages follow the
// picture in docs/architecture.md: each layer imports only layers below it,
// or packages of its own top-level directory.
package layers

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/spillway-dev/spillway/"

// ranks reads the ```layers block of docs/architecture.md: "N dir dir ...",
// one layer a line, higher layers first.
func ranks(r io.Reader) (map[string]int, error) {
	out := map[string]int{}
	in := false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "```layers":
			in = true
		case in && line == "```":
			return out, nil
		case in && line != "":
			fields := strings.Fields(line)
			rank, err := strconv.Atoi(fields[0])
			if err != nil || len(fields) < 2 {
				return nil, fmt.Errorf("layers line %q: want a rank and directories", line)
			}
			for _, dir := range fields[1:] {
				out[dir] = rank
			}
		}
	}
	return nil, fmt.Errorf("no ```layers block found")
}

// topDir is the first path element of a package inside the module.
func topDir(pkg string) string {
	dir, _, _ := strings.Cut(strings.TrimPrefix(pkg, module), "/")
	return dir
}

// violations lists the imports from a package to a package of a higher layer.
func violations(imports map[string][]string, rank map[string]int) []string {
	var out []string
	for pkg, deps := range imports {
		from, ok := rank[topDir(pkg)]
		if !ok {
			out = append(out, fmt.Sprintf("%s: its directory %q has no layer in docs/architecture.md", pkg, topDir(pkg)))
			continue
		}
		for _, dep := range deps {
			if !strings.HasPrefix(dep, module) || topDir(dep) == topDir(pkg) {
				continue
			}
			if to, ok := rank[topDir(dep)]; !ok || to >= from {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d): move the shared part down, or the importer up",
					strings.TrimPrefix(pkg, module), from, strings.TrimPrefix(dep, module), to))
			}
		}
	}
	return out
}

func TestViolationsCatchAnUpwardImport(t *testing.T) {
	rank := map[string]int{"cli": 6, "reflectors": 4, "api": 1}
	got := violations(map[string][]string{
		module + "reflectors/pod": {module + "api/v1", module + "reflectors/reflection", "k8s.io/api/core/v1"},
		module + "api/v1":         {module + "cli/plan"},
	}, rank)
	if len(got) != 1 || !strings.Contains(got[0], "api/v1 (layer 1) imports cli/plan (layer 6)") {
		t.Fatalf("want exactly the api → cli import refused, got %q", got)
	}
}

func TestImportsFollowTheArchitecturePicture(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.Open(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	rank, err := ranks(doc)
	if err != nil {
		t.Fatalf("docs/architecture.md: %v", err)
	}
	cmd := exec.Command("go", "list", "-tags", "e2e", "-json=ImportPath,Imports", "./...")
	cmd.Dir = root
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		imports[p.ImportPath] = p.Imports
	}
	if len(imports) < 20 {
		t.Fatalf("go list found %d packages: not run from the module", len(imports))
	}
	for _, v := range violations(imports, rank) {
		t.Error(v)
	}
}
