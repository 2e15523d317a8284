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

package clusters_test

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The manager's collector must know the container's memory limit: without
// a soft limit it lets the heap grow to twice what it keeps
// (docs/performance.md, target 3) and the kernel, not the collector, meets
// the container's limit. The manager derives the collector's limit from
// SPILLWAY_MEMORY_LIMIT (cmd/spillway-controller/memlimit.go). A
// resourceFieldRef to a limit the container does not set would hand it the
// node's allocatable memory instead, so the limit must be there too.
func TestManagerCollectorKnowsItsMemoryLimit(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join(root, "kustomize", "default"))
	var dep appsv1.Deployment
	mustDecodeStrict(t, b.find(t, "Deployment", "liqo", "spillway-controller"), &dep)
	c := dep.Spec.Template.Spec.Containers[0]

	limit, ok := c.Resources.Limits[corev1.ResourceMemory]
	g.Expect(ok).To(BeTrue(), "container %s sets no memory limit for SPILLWAY_MEMORY_LIMIT to carry", c.Name)
	request := c.Resources.Requests[corev1.ResourceMemory]
	g.Expect(limit.Cmp(request)).To(BeNumerically(">", 0), "the memory limit %s must leave room above the request %s", limit.String(), request.String())

	env := expectArgVarsInEnv(g, c)
	g.Expect(env).NotTo(HaveKey("GOMEMLIMIT"), "an explicit GOMEMLIMIT overrides the limit the manager derives from SPILLWAY_MEMORY_LIMIT")
	g.Expect(env).To(HaveKey("SPILLWAY_MEMORY_LIMIT"), "container %s has no SPILLWAY_MEMORY_LIMIT", c.Name)
	g.Expect(env["SPILLWAY_MEMORY_LIMIT"].ValueFrom).To(HaveField("ResourceFieldRef", Equal(&corev1.ResourceFieldSelector{ContainerName: c.Name, Resource: "limits.memory"})),
		"SPILLWAY_MEMORY_LIMIT must be the container's own memory limit, in bytes (no divisor)")
}
