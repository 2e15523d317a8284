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
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// GitServerProcess is the lab process serving the fleet repository.
const GitServerProcess = "git-server"

// gitServerPortIndex is the git server's port among its host cluster's extra ports.
const gitServerPortIndex = 2

// FleetRepo is the lab's copy of the fleet: a bare repository served over
// HTTP on loopback, which the clusters' source-controllers clone, and a
// working clone the demo and the suites commit to, as a user commits to their
// fork.
type FleetRepo struct {
	// URL is what the GitRepository objects point at.
	URL  string
	bare string
	work string
}

// fleetPaths are what the Flux Kustomizations of clusters/<name>/flux read.
var fleetPaths = []string{"clusters", "kustomize"}

// sourceURLRE finds the url of the GitRepository in clusters/<name>/flux/source.yaml.
var sourceURLRE = regexp.MustCompile(`(?m)^(\s*url:\s*)\S+\s*$`)

// StartFleetRepo copies clusters/ and kustomize/ of the working tree at root
// (committed or not, ignored files left out) into a new repository under the
// lab's directory, commits it on main, points every cluster's GitRepository
// at the lab's server in a second commit (what a user does in their fork), and
// serves it from a process of host.
func StartFleetRepo(ctx context.Context, root string, l *lab.Lab, host *lab.Cluster) (*FleetRepo, error) {
	base := filepath.Join(l.Dir(), "git")
	port, err := host.ExtraPort(gitServerPortIndex)
	if err != nil {
		return nil, err
	}
	r, err := newFleetRepo(ctx, root, base, "http://127.0.0.1:"+strconv.Itoa(port)+"/fleet.git")
	if err != nil {
		return nil, err
	}
	bins, err := Binaries()
	if err != nil {
		return nil, err
	}
	args := []string{filepath.Join(bins, "spillway-lab"), "serve-git", "--root", base, "--addr", "127.0.0.1:" + strconv.Itoa(port)}
	return r, host.StartExtra(ctx, GitServerProcess, args, lab.HTTPReady(r.URL+"/info/refs?service=git-upload-pack"))
}

// newFleetRepo makes the bare repository and the working clone under base,
// with the fleet of root committed and pointed at url.
func newFleetRepo(ctx context.Context, root, base, url string) (*FleetRepo, error) {
	r := &FleetRepo{URL: url, bare: filepath.Join(base, "fleet.git"), work: filepath.Join(base, "work")}
	if err := os.RemoveAll(base); err != nil {
		return nil, err
	}
	if _, err := git(ctx, "", "init", "--quiet", "--bare", "--initial-branch=main", r.bare); err != nil {
		return nil, err
	}
	if _, err := git(ctx, "", "init", "--quiet", "--initial-branch=main", r.work); err != nil {
		return nil, err
	}
	if err := copyTracked(ctx, root, r.work, fleetPaths); err != nil {
		return nil, err
	}
	if _, err := r.commit(ctx, "The fleet, as committed in github.com/spillway-dev/spillway"); err != nil {
		return nil, err
	}
	if _, err := git(ctx, r.work, "remote", "add", "origin", r.bare); err != nil {
		return nil, err
	}
	if _, err := r.Commit(ctx, "Point the fleet's GitRepository at the lab's git server", r.pointAtSelf); err != nil {
		return nil, err
	}
	return r, nil
}

// pointAtSelf rewrites the url of every clusters/<name>/flux/source.yaml.
func (r *FleetRepo) pointAtSelf(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "clusters", "*", "flux", "source.yaml"))
	if err != nil {
		return err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if !sourceURLRE.Match(data) {
			return fmt.Errorf("%s has no url: line to point at the lab's git server", f)
		}
		if err := os.WriteFile(f, sourceURLRE.ReplaceAll(data, []byte("${1}"+r.URL)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Dir is the working clone; change files there only through Commit.
func (r *FleetRepo) Dir() string { return r.work }

// Commit applies change to the working clone, commits everything with msg and
// pushes main to the served repository. It returns the new commit's hash.
func (r *FleetRepo) Commit(ctx context.Context, msg string, change func(dir string) error) (string, error) {
	if err := change(r.work); err != nil {
		return "", fmt.Errorf("changing the fleet for %q: %w", msg, err)
	}
	sha, err := r.commit(ctx, msg)
	if err != nil {
		return "", err
	}
	_, err = git(ctx, r.work, "push", "--quiet", "--force", "origin", "main")
	return sha, err
}

func (r *FleetRepo) commit(ctx context.Context, msg string) (string, error) {
	if _, err := git(ctx, r.work, "add", "--all"); err != nil {
		return "", err
	}
	if _, err := git(ctx, r.work, "commit", "--quiet", "--allow-empty", "-m", msg); err != nil {
		return "", err
	}
	return git(ctx, r.work, "rev-parse", "HEAD")
}

// copyTracked copies the files git knows under paths (tracked, or new and
// not ignored) from the repository at src into dst.
func copyTracked(ctx context.Context, src, dst string, paths []string) error {
	out, err := git(ctx, src, append([]string{"ls-files", "--cached", "--others", "--exclude-standard", "--"}, paths...)...)
	if err != nil {
		return err
	}
	for _, rel := range strings.Split(out, "\n") {
		if rel == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, rel))
		if os.IsNotExist(err) {
			continue // deleted in the working tree, not yet committed
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, rel), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// git runs git in dir with a fixed identity, so a machine without a git
// configuration can commit; it returns trimmed stdout.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-c", "user.name=spillway-lab", "-c", "user.email=lab@spillway.dev", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// Head is the hash of the last commit pushed.
func (r *FleetRepo) Head(ctx context.Context) (string, error) {
	return git(ctx, r.work, "rev-parse", "HEAD")
}

// Restore commits paths as they were at rev (a revert of what changed them
// since) and pushes, returning the new commit's hash.
func (r *FleetRepo) Restore(ctx context.Context, msg, rev string, paths ...string) (string, error) {
	return r.Commit(ctx, msg, func(dir string) error {
		_, err := git(ctx, dir, append([]string{"checkout", rev, "--"}, paths...)...)
		return err
	})
}
