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
)

// The rendering is tested in cli/status with a fake client; here, that a
// cluster that cannot be reached is one error line and exit 1.
func TestStatusWithoutAReachableClusterExits1(t *testing.T) {
	g := NewWithT(t)
	r := spillway("status", "--kubeconfig", filepath.Join(t.TempDir(), "missing"))
	g.Expect(r.code).To(Equal(1))
	g.Expect(lines(r.stderr)).To(HaveLen(1))
	g.Expect(r.stderr).To(HavePrefix("spillway: reading the kubeconfig"))

	r = spillway("status", "peer")
	g.Expect(r.code).To(Equal(2))
	g.Expect(r.stderr).To(ContainSubstring("spillway status peer takes 1 argument(s)"))
}
