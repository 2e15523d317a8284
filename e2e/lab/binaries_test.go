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
	"io"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

func TestResolveBinariesNamesAMissingBinaryAndTheFix(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	t.Setenv(EnvKubeBin, filepath.Join(dir, "kubebin"))
	t.Setenv(EnvKwok, filepath.Join(dir, "kwok"))
	t.Setenv(EnvKwokStages, filepath.Join(dir, "stages"))
	_, err := ResolveBinaries(io.Discard)
	g.Expect(err).To(MatchError(And(
		ContainSubstring(filepath.Join(dir, "kubebin", "kube-apiserver")+" is missing"),
		ContainSubstring("hack/kubebin.sh"), ContainSubstring(EnvKubeBin))))
}
