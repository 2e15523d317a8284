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
	"regexp"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
)

var regexpDocSep = regexp.MustCompile(`(?m)^---\n`)

// A command that cannot run as asked exits 2 with one line that names the
// flag and the fix, and writes nothing.
func TestUsageErrorsNameTheFlagAndExit2(t *testing.T) {
	f := copyFleet(t)
	offload := []string{"offload", "namespace", "web", "--cluster", "rome", "--fleet", f}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad selector", append(offload, "--selector", "region in (south"), `spillway: --selector "region in (south": `},
		{"empty selector", append(offload, "--selector", ""), `spillway: --selector "": empty selector`},
		{"unknown pod strategy", append(offload, "--pod-offloading-strategy", "Anywhere"), `spillway: --pod-offloading-strategy "Anywhere" is not LocalAndRemote, Local or Remote`},
		{"unknown mapping strategy", append(offload, "--namespace-mapping-strategy", "SameName"), `spillway: --namespace-mapping-strategy "SameName" is not DefaultName or EnforceSameName`},
		{"unknown output", append(offload, "--output", "xml"), `spillway: --output "xml" is not yaml or json`},
		{"no cluster", []string{"offload", "namespace", "web", "--fleet", f}, "spillway: --cluster is required"},
		{"unknown cluster", []string{"offload", "namespace", "web", "--fleet", f, "--cluster", "trieste"}, "spillway: --cluster trieste: there is no folder"},
		{"bad namespace", []string{"offload", "namespace", "Web_App", "--cluster", "rome", "--fleet", f}, `spillway: namespace "Web_App"`},
		{"missing argument", []string{"offload", "namespace", "--cluster", "rome", "--fleet", f}, "spillway: spillway offload namespace takes 1 argument(s)"},
		{"unknown flag", append(offload, "--selectors", "a=b"), "spillway: unknown flag: --selectors"},
		{"unknown command", []string{"offlaod"}, `spillway: unknown command "offlaod"`},
		{"limits and percentage", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--cpu", "4", "--sharing-percentage", "50"},
			"spillway: --sharing-percentage and --cpu/--memory/--gpu are mutually exclusive"},
		{"broker with limits", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--broker", "--cpu", "4"},
			"spillway: --broker and --cpu/--memory/--gpu are mutually exclusive"},
		{"exposed labels without broker", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--expose-labels", "topology.kubernetes.io/zone"},
			"spillway: --expose-labels needs --broker"},
		{"a reserved exposed label", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--broker", "--expose-labels", "zone,liqo.io/type"},
			`spillway: --expose-labels: "liqo.io/type" is set by the virtual node itself`},
		{"percentage out of range", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--sharing-percentage", "120"},
			"spillway: --sharing-percentage 120 is outside 1-100"},
		{"bad quantity", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--memory", "lots"}, `spillway: --memory "lots" is not a positive quantity`},
		{"bad label", []string{"generate", "offer", "rome", "--cluster", "milan", "--fleet", f, "--label", "region"}, `spillway: --label "region" has no '='`},
		{"unknown consumer id", []string{"generate", "offer", "trieste", "--cluster", "milan", "--fleet", f}, "spillway: --cluster-id is required"},
		{"unknown provider id", []string{"peer", "palermo", "--cluster", "rome", "--fleet", f}, "spillway: --cluster-id is required"},
		{"plan output", []string{"plan", "--fleet", f, "--base", f, "--output", "yaml"}, `spillway: --output "yaml" is not text or json`},
		{"plan ref", []string{"plan", "--fleet", f, "--base", "no-such-ref"}, `spillway: --base: "no-such-ref" is neither a directory nor a git ref`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			before := fleettest.Read(t, f, "rome/config/kustomization.yaml")
			r := spillway(tc.args...)
			g.Expect(r.code).To(Equal(2), r.stderr)
			g.Expect(lines(r.stderr)).To(HaveLen(1), "one error line")
			g.Expect(r.stderr).To(HavePrefix(tc.want))
			g.Expect(r.stdout).To(BeEmpty())
			g.Expect(fleettest.Read(t, f, "rome/config/kustomization.yaml")).To(Equal(before))
		})
	}
}

func TestOffloadRefusesToChangeTheMappingStrategy(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	g.Expect(spillway("offload", "namespace", "web", "--cluster", "rome", "--fleet", f).code).To(Equal(0))
	written := fleettest.Read(t, f, "rome/config/offloading-web.yaml")

	r := spillway("offload", "namespace", "web", "--cluster", "rome", "--fleet", f, "--namespace-mapping-strategy", "EnforceSameName")
	g.Expect(r.code).To(Equal(2))
	g.Expect(lines(r.stderr)).To(HaveLen(1))
	g.Expect(r.stderr).To(ContainSubstring("--namespace-mapping-strategy EnforceSameName: web is already offloaded with DefaultName"))
	g.Expect(r.stderr).To(ContainSubstring("spillway unoffload namespace web"))
	g.Expect(fleettest.Read(t, f, "rome/config/offloading-web.yaml")).To(Equal(written))

	// The pod strategy may change.
	g.Expect(spillway("offload", "namespace", "web", "--cluster", "rome", "--fleet", f, "--pod-offloading-strategy", "Local").code).To(Equal(0))
}
