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
	"fmt"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// GitHandler serves the bare repositories under root over git's smart HTTP
// protocol, read-only, by running `git http-backend` as a CGI program: the
// protocol source-controller's go-git speaks (it has no dumb-HTTP client).
func GitHandler(root string) (http.Handler, error) {
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		return nil, fmt.Errorf("git is needed to serve the lab's fleet repository (apt-get install git): %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return nil, fmt.Errorf("git-http-backend not found next to git: %w", err)
	}
	h := &cgi.Handler{
		Path: backend,
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			// Every repository under root is the lab's own; no git-daemon-export-ok files needed.
			"GIT_HTTP_EXPORT_ALL=1",
		},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Read-only: the lab commits through its own clone on disk, never over HTTP.
		if r.URL.Query().Get("service") == "git-receive-pack" || strings.HasSuffix(r.URL.Path, "/git-receive-pack") {
			http.Error(w, "the lab's git server is read-only", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}), nil
}
