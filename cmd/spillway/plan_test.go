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

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
	"github.com/spillway-dev/spillway/cli/plan"
)

func TestPlanExitCodes(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)

	r := spillway("plan", "--base", base, "--head", head)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(r.stdout).To(Equal("Plan: no change to offloading, peerings or offers.\n"))

	g.Expect(spillway("offload", "namespace", "web", "--cluster", "rome", "--fleet", head).code).To(Equal(0))
	r = spillway("plan", "--base", base, "--head", head)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(r.stdout).To(ContainSubstring("rome\n  + web: offloaded to milan as web-rome-"))

	fleettest.Edit(t, head, "rome/config/namespace-liqo-demo.yaml", "namespaceMappingStrategy: DefaultName", "namespaceMappingStrategy: EnforceSameName")
	r = spillway("plan", "--base", base, "--head", head)
	g.Expect(r.code).To(Equal(1), "a rejected change exits 1")
	g.Expect(r.stderr).To(BeEmpty(), "the plan itself says what is wrong")
	g.Expect(r.stdout).To(ContainSubstring("x REJECTED liqo-demo: spec.namespaceMappingStrategy cannot change"))

	r = spillway("plan", "--base", base, "--head", head, "--output", "json")
	g.Expect(r.code).To(Equal(1))
	var p plan.Plan
	g.Expect(json.Unmarshal([]byte(r.stdout), &p)).To(Succeed())
	g.Expect(p.Rejected).To(BeTrue())
	g.Expect(p.Clusters).To(HaveLen(1))
	g.Expect(p.Clusters[0].Changes).To(ContainElement(plan.Change{Kind: plan.MappingStrategyChange, Namespace: "liqo-demo",
		Message: p.Clusters[0].Changes[0].Message, Rejected: true}))
}

// By default the plan compares HEAD with the work tree of --fleet.
func TestPlanDefaultsToHEADAgainstTheWorkTree(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	repo := filepath.Dir(f)
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "--all"}, {"commit", "--quiet", "-m", "fleet"}} {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@spillway.invalid", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		g.Expect(err).NotTo(HaveOccurred(), string(out))
	}
	g.Expect(spillway("offload", "namespace", "web", "--cluster", "rome", "--fleet", f).code).To(Equal(0))

	r := spillway("plan", "--fleet", f)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(r.stdout).To(ContainSubstring("+ web: offloaded to milan"))
	g.Expect(r.stdout).To(HaveSuffix("Plan: 1 change in 1 cluster, none rejected.\n"))
}

// Offloading with policies, as a pull request would change it: venice's
// namespace moves from naples (south) to florence (center) when the selector
// changes, and the plan says so without rejecting it; changing its mapping
// strategy as well is rejected, naming the field.
func TestPlanOfASelectorChangeListsTheNamespacesThatMove(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	fleettest.Edit(t, head, "venice/config/offloading-liqo-demo.yaml", "- south", "- center")

	r := spillway("plan", "--base", base, "--head", head)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(r.stdout).To(Equal("venice\n" +
		"  ~ liqo-demo: moves from naples to florence (spec.clusterSelector changed): liqo-demo is created on florence; deleted, with its pods, from naples\n" +
		"Plan: 1 change in 1 cluster, none rejected.\n"))

	fleettest.Edit(t, head, "venice/config/offloading-liqo-demo.yaml", "namespaceMappingStrategy: EnforceSameName", "namespaceMappingStrategy: DefaultName")
	r = spillway("plan", "--base", base, "--head", head)
	g.Expect(r.code).To(Equal(1), "a rejected change exits 1")
	g.Expect(r.stdout).To(ContainSubstring("x REJECTED liqo-demo: spec.namespaceMappingStrategy cannot change"))
}
