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
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/cli/fleet"
	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
)

func TestOffloadWritesThenUnoffloadRemoves(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	kustomization := fleettest.Read(t, f, "rome/config/kustomization.yaml")
	args := []string{"offload", "namespace", "web", "--cluster", "rome", "--fleet", f, "--pod-offloading-strategy", "Remote",
		"--selector", "topology.liqo.io/region=north", "--selector", "tier in (edge,gpu),!legacy"}

	r := spillway(args...)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(r.stdout).To(ContainSubstring("wrote " + filepath.Join(f, "rome", "config", "offloading-web.yaml")))
	written := fleettest.Read(t, f, "rome/config/offloading-web.yaml")
	g.Expect(fleettest.Read(t, f, "rome/config/kustomization.yaml")).To(Equal(kustomization + "- offloading-web.yaml\n"))

	// Idempotent: the same command changes nothing.
	g.Expect(spillway(args...).code).To(Equal(0))
	g.Expect(fleettest.Read(t, f, "rome/config/offloading-web.yaml")).To(Equal(written))
	g.Expect(fleettest.Read(t, f, "rome/config/kustomization.yaml")).To(Equal(kustomization + "- offloading-web.yaml\n"))

	objs := build(t, f, "rome")
	var ns corev1.Namespace
	decodeStrict(t, find(t, objs, "Namespace", "", "web"), &ns)
	g.Expect(ns.Labels).To(HaveKeyWithValue(offloadingv1alpha1.SchedulingEnabledLabel, offloadingv1alpha1.SchedulingEnabledValue))
	g.Expect(ns.Annotations).To(HaveKeyWithValue("kustomize.toolkit.fluxcd.io/prune", "disabled"), "unoffloading keeps the namespace")
	var no offloadingv1alpha1.NamespaceOffloading
	decodeStrict(t, find(t, objs, "NamespaceOffloading", "web", "offloading"), &no)
	g.Expect(no.Spec.NamespaceMappingStrategy).To(Equal(offloadingv1alpha1.DefaultNameMappingStrategy))
	g.Expect(no.Spec.PodOffloadingStrategy).To(Equal(offloadingv1alpha1.RemotePodOffloadingStrategy))
	g.Expect(no.Spec.ClusterSelector.NodeSelectorTerms).To(HaveLen(2))
	g.Expect(no.Spec.ClusterSelector.NodeSelectorTerms[1].MatchExpressions).To(ConsistOf(
		corev1.NodeSelectorRequirement{Key: "tier", Operator: corev1.NodeSelectorOpIn, Values: []string{"edge", "gpu"}},
		corev1.NodeSelectorRequirement{Key: "legacy", Operator: corev1.NodeSelectorOpDoesNotExist}))
	g.Expect(written).NotTo(ContainSubstring("status"))
	g.Expect(written).NotTo(ContainSubstring("creationTimestamp"))

	r = spillway("unoffload", "namespace", "web", "--cluster", "rome", "--fleet", f)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(filepath.Join(f, "rome", "config", "offloading-web.yaml")).NotTo(BeAnExistingFile())
	g.Expect(fleettest.Read(t, f, "rome/config/kustomization.yaml")).To(Equal(kustomization), "the kustomization is back, comments and all")
	build(t, f, "rome")

	r = spillway("unoffload", "namespace", "web", "--cluster", "rome", "--fleet", f)
	g.Expect(r.code).To(Equal(1))
	g.Expect(r.stderr).To(ContainSubstring("web is not offloaded in"))
}

func TestOffloadCreatesTheConfigFolderOfANewCluster(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	fleettest.Write(t, f, "trieste/install/cluster-identity.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: spillway-cluster-identity, namespace: liqo}\ndata: {CLUSTER_ID: v}\n")
	r := spillway("offload", "namespace", "liqo-demo", "--cluster", "trieste", "--fleet", f, "--namespace-mapping-strategy", "EnforceSameName")
	g.Expect(r.code).To(Equal(0), r.stderr)
	res, err := fleet.Resources(filepath.Join(f, "trieste", "config"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal([]string{"offloading-liqo-demo.yaml"}))
	build(t, f, "trieste")
}

// The example fleet offloads liqo-demo in a file of its own: offload and
// unoffload point at it instead of declaring the namespace twice.
func TestOffloadLeavesOffloadingsItDidNotWriteAlone(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	before := fleettest.Read(t, f, "rome/config/kustomization.yaml")

	r := spillway("offload", "namespace", "liqo-demo", "--cluster", "rome", "--fleet", f)
	g.Expect(r.code).To(Equal(1))
	g.Expect(lines(r.stderr)).To(HaveLen(1))
	g.Expect(r.stderr).To(ContainSubstring("NamespaceOffloading liqo-demo/offloading is already declared in " + filepath.Join(f, "rome", "config", "namespace-liqo-demo.yaml")))
	g.Expect(filepath.Join(f, "rome", "config", "offloading-liqo-demo.yaml")).NotTo(BeAnExistingFile())
	g.Expect(fleettest.Read(t, f, "rome/config/kustomization.yaml")).To(Equal(before))

	r = spillway("unoffload", "namespace", "liqo-demo", "--cluster", "rome", "--fleet", f)
	g.Expect(r.code).To(Equal(1))
	g.Expect(r.stderr).To(ContainSubstring("liqo-demo is offloaded by " + filepath.Join(f, "rome", "config", "namespace-liqo-demo.yaml") + ", which spillway did not write"))
}

func TestOffloadPrintsWithOutput(t *testing.T) {
	g := NewWithT(t)
	r := spillway("offload", "namespace", "web", "--output", "yaml", "--selector", "topology.liqo.io/region=south")
	g.Expect(r.code).To(Equal(0), r.stderr)
	docs := splitDocs(r.stdout)
	g.Expect(docs).To(HaveLen(2))
	var no offloadingv1alpha1.NamespaceOffloading
	j, err := yaml.YAMLToJSON([]byte(docs[1]))
	g.Expect(err).NotTo(HaveOccurred())
	decodeStrict(t, j, &no)
	g.Expect(no.Name).To(Equal("offloading"))
	g.Expect(no.Namespace).To(Equal("web"))

	r = spillway("offload", "namespace", "web", "-o", "json")
	g.Expect(r.code).To(Equal(0), r.stderr)
	var list struct {
		Kind  string           `json:"kind"`
		Items []map[string]any `json:"items"`
	}
	g.Expect(yaml.Unmarshal([]byte(r.stdout), &list)).To(Succeed())
	g.Expect(list.Kind).To(Equal("List"))
	g.Expect(list.Items).To(HaveLen(2))
}

func splitDocs(s string) []string {
	var out []string
	for _, d := range regexpDocSep.Split(s, -1) {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}
