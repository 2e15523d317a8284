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

package framework

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFleetRepoCopiesTheFleetAndPointsItAtTheLab(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	ctx := context.Background()
	src := t.TempDir()
	if _, err := git(ctx, src, "init", "--quiet"); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(src, ".gitignore"), "*.secret\n")
	write(t, filepath.Join(src, "clusters/rome/flux/source.yaml"), "kind: GitRepository\nspec:\n  url: https://github.com/spillway-dev/spillway\n  ref:\n    branch: main\n")
	write(t, filepath.Join(src, "kustomize/crd/kustomization.yaml"), "resources: []\n")
	write(t, filepath.Join(src, "clusters/rome/config/token.secret"), "never copied\n")
	write(t, filepath.Join(src, "cmd/main.go"), "package main\n")
	if _, err := git(ctx, src, "add", "clusters/rome/flux", ".gitignore"); err != nil {
		t.Fatal(err)
	}

	url := "http://127.0.0.1:1234/fleet.git"
	r, err := newFleetRepo(ctx, src, filepath.Join(t.TempDir(), "git"), url)
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile(filepath.Join(r.Dir(), "clusters/rome/flux/source.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(source), "  url: "+url+"\n") || !strings.Contains(string(source), "branch: main") {
		t.Fatalf("source.yaml not pointed at the lab:\n%s", source)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "kustomize/crd/kustomization.yaml")); err != nil {
		t.Errorf("an untracked, not ignored file of kustomize/ was left out: %v", err)
	}
	for _, left := range []string{"clusters/rome/config/token.secret", "cmd/main.go"} {
		if _, err := os.Stat(filepath.Join(r.Dir(), left)); err == nil {
			t.Errorf("%s was copied: only clusters/ and kustomize/, without ignored files, belong to the fleet", left)
		}
	}
	served, err := git(ctx, r.bare, "log", "--format=%s", "main")
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(served, "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "Point the fleet") {
		t.Fatalf("served history %q, want the fleet then the commit pointing it at the lab", served)
	}

	sha, err := r.Commit(ctx, "Remove rome's config", func(dir string) error {
		return os.RemoveAll(filepath.Join(dir, "clusters/rome/flux"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if head, _ := git(ctx, r.bare, "rev-parse", "main"); head != sha {
		t.Fatalf("served main at %s after Commit, want %s", head, sha)
	}
	if _, err := r.Restore(ctx, "Bring it back", "HEAD~1", "clusters/rome"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.Dir(), "clusters/rome/flux/source.yaml")); err != nil {
		t.Fatalf("Restore did not bring the folder back: %v", err)
	}
}
