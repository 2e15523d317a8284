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
	"testing"

	. "github.com/onsi/gomega"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestMoveVolumeWritesAVolumeMoveTheFolderBuilds(t *testing.T) {
	g := NewWithT(t)
	f := copyFleet(t)
	r := spillway("move", "volume", "data-db-0", "--namespace", "liqo-demo", "--node", "liqo-milan", "--cluster", "rome", "--fleet", f)
	g.Expect(r.code).To(Equal(0), r.stderr)
	g.Expect(r.stdout).To(ContainSubstring("volumemove-liqo-demo-data-db-0.yaml"))
	var vm sharingv1alpha1.VolumeMove
	decodeStrict(t, find(t, build(t, f, "rome"), "VolumeMove", "liqo-demo", "data-db-0"), &vm)
	g.Expect(vm.Spec).To(Equal(sharingv1alpha1.VolumeMoveSpec{ClaimName: "data-db-0", NodeName: "liqo-milan"}))

	again := spillway("move", "volume", "data-db-0", "--namespace", "liqo-demo", "--node", "rome-worker", "--cluster", "rome", "--fleet", f)
	g.Expect(again.code).To(Equal(0), "moving the claim elsewhere rewrites its one file: %s", again.stderr)
	decodeStrict(t, find(t, build(t, f, "rome"), "VolumeMove", "liqo-demo", "data-db-0"), &vm)
	g.Expect(vm.Spec.NodeName).To(Equal("rome-worker"))
}

func TestMoveVolumeRefusesBadNames(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		mention string
	}{
		{[]string{"data", "--node", "liqo-milan", "-o", "yaml"}, "--namespace and --node are required"},
		{[]string{"data", "--namespace", "shop", "-o", "yaml"}, "--namespace and --node are required"},
		{[]string{"Data", "--namespace", "shop", "--node", "liqo-milan", "-o", "yaml"}, "CLAIM: spec.claimName"},
		{[]string{"data", "--namespace", "shop", "--node", "liqo_milan", "-o", "yaml"}, "--node: spec.nodeName"},
		{[]string{"data", "--namespace", "Shop", "--node", "liqo-milan", "-o", "yaml"}, "--namespace"},
	} {
		r := spillway(append([]string{"move", "volume"}, tc.args...)...)
		NewWithT(t).Expect(r.code).To(Equal(2), "%v", tc.args)
		NewWithT(t).Expect(r.stderr).To(ContainSubstring(tc.mention))
	}
}
