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

package plan

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// gitRepo makes a repository whose clusters/ folder is a copy of the example
// fleet, committed once.
func gitRepo(t *testing.T) (repo, fleetDir string) {
	t.Helper()
	fleetDir = copyFleet(t)
	repo = filepath.Dir(fleetDir)
	runGit(t, repo, "init", "--quiet", "--initial-branch=main")
	commitAll(t, repo, "the example fleet")
	return repo, fleetDir
}

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=spillway-test", "-c", "user.email=test@spillway.invalid",
		"-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func commitAll(t *testing.T, repo, msg string) {
	t.Helper()
	runGit(t, repo, "add", "--all")
	runGit(t, repo, "commit", "--quiet", "-m", msg)
}

func TestPlanBetweenTwoGitRefs(t *testing.T) {
	g := NewWithT(t)
	repo, fleetDir := gitRepo(t)
	first := runGit(t, repo, "rev-parse", "HEAD")
	edit(t, fleetDir, "rome/config/namespace-liqo-demo.yaml", "namespaceMappingStrategy: DefaultName", "namespaceMappingStrategy: EnforceSameName")
	commitAll(t, repo, "rename liqo-demo's remote namespace")
	// An uncommitted change the plan between refs must not see.
	edit(t, fleetDir, "rome/config/namespace-liqo-demo.yaml", "podOffloadingStrategy: LocalAndRemote", "podOffloadingStrategy: Local")

	base, err := Resolve(first, fleetDir)
	g.Expect(err).NotTo(HaveOccurred())
	defer base.Cleanup()
	head, err := Resolve("HEAD", fleetDir)
	g.Expect(err).NotTo(HaveOccurred())
	defer head.Cleanup()
	g.Expect(filepath.Join(head.Dir, "rome", "config", "kustomization.yaml")).To(BeARegularFile())

	p := compute(t, base.Dir, head.Dir, Options{})
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(changesOf(p, "rome")).To(ConsistOf(HaveField("Kind", MappingStrategyChange)))

	// HEAD against the work tree sees only the uncommitted change.
	p = compute(t, head.Dir, fleetDir, Options{})
	g.Expect(p.Rejected).To(BeFalse())
	g.Expect(changesOf(p, "rome")).To(ConsistOf(HaveField("Kind", PodStrategyChange)))

	head.Cleanup()
	g.Expect(head.Dir).NotTo(BeADirectory(), "cleanup removes the extracted tree")
}

func TestResolveRejectsAnUnknownRef(t *testing.T) {
	g := NewWithT(t)
	_, fleetDir := gitRepo(t)
	_, err := Resolve("no-such-branch", fleetDir)
	g.Expect(err).To(MatchError(ContainSubstring(`"no-such-branch" is neither a directory nor a commit`)))

	_, err = Resolve("main", t.TempDir())
	g.Expect(err).To(MatchError(ContainSubstring("not in a git repository")))
}
