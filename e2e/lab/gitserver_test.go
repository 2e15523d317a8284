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

package lab

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestGitHandlerServesClonesAndRefusesPushes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	work := filepath.Join(root, "work")
	gitIn(t, root, "init", "--quiet", "--bare", filepath.Join(root, "fleet.git"))
	gitIn(t, root, "init", "--quiet", work)
	if err := os.WriteFile(filepath.Join(work, "kustomization.yaml"), []byte("resources: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, work, "add", ".")
	gitIn(t, work, "commit", "--quiet", "-m", "fleet")
	gitIn(t, work, "push", "--quiet", filepath.Join(root, "fleet.git"), "HEAD:main")
	want := gitIn(t, work, "rev-parse", "HEAD")

	h, err := GitHandler(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()

	// Smart HTTP: the ref advertisement go-git asks for first.
	resp, err := http.Get(srv.URL + "/fleet.git/info/refs?service=git-upload-pack")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-git-upload-pack-advertisement" {
		t.Fatalf("info/refs Content-Type = %q, want the smart protocol's advertisement", ct)
	}
	clone := filepath.Join(root, "clone")
	gitIn(t, root, "clone", "--quiet", srv.URL+"/fleet.git", clone)
	if got := gitIn(t, clone, "rev-parse", "HEAD"); got != want {
		t.Fatalf("cloned HEAD %s, want %s", got, want)
	}

	resp, err = http.Get(srv.URL + "/fleet.git/info/refs?service=git-receive-pack")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("receive-pack answered %s, want 403: the server is read-only", resp.Status)
	}
}
