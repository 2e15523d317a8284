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

// Package fleettest copies and edits fleet directories for tests.
package fleettest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Copy copies the YAML and Markdown files of a fleet directory into a new
// temporary directory and returns the copy, named clusters like the original.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "clusters")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".md") {
			return nil // Go tests and the like are not part of the fleet
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, raw, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Write writes a file of the fleet, creating its folder.
func Write(t testing.TB, fleetDir, file, content string) {
	t.Helper()
	p := filepath.Join(fleetDir, file)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Edit replaces old by new in a file of the fleet, failing when old is not
// there, so a test never passes on an edit that did nothing.
func Edit(t testing.TB, fleetDir, file, old, new string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fleetDir, file))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), old) {
		t.Fatalf("%s does not contain %q", file, old)
	}
	Write(t, fleetDir, file, strings.Replace(string(raw), old, new, 1))
}

// Read returns a file of the fleet.
func Read(t testing.TB, fleetDir, file string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(fleetDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
