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
	"bytes"
	"strings"
	"testing"

	"github.com/onsi/ginkgo/v2/types"
	. "github.com/onsi/gomega"
)

func TestPrintFailuresWritesOneLinePerFailedSpecWithItsMessage(t *testing.T) {
	g := NewWithT(t)
	failed := types.SpecReport{
		ContainerHierarchyTexts: []string{"the network fabric"}, LeafNodeText: "connects the gateways",
		State: types.SpecStateFailed,
		Failure: types.Failure{Message: "Timed out after 15s.\nExpected\n    <string>: Connecting\nto equal\n    <string>: Connected",
			Location: types.CodeLocation{FileName: "fabric_test.go", LineNumber: 52}},
	}
	passed := types.SpecReport{LeafNodeText: "answers", State: types.SpecStatePassed}
	var out bytes.Buffer
	PrintFailures(&out, types.Report{SpecReports: types.SpecReports{passed, failed}})
	g.Expect(out.String()).To(Equal(`FAILED "the network fabric connects the gateways" at fabric_test.go:52: ` +
		"Timed out after 15s. Expected <string>: Connecting to equal <string>: Connected\n"))
}

func TestPrintFailuresCutsALongMessage(t *testing.T) {
	g := NewWithT(t)
	failed := types.SpecReport{LeafNodeText: "x", State: types.SpecStateFailed,
		Failure: types.Failure{Message: strings.Repeat("a", 5000)}}
	var out bytes.Buffer
	PrintFailures(&out, types.Report{SpecReports: types.SpecReports{failed}})
	g.Expect(out.String()).To(HaveSuffix(strings.Repeat("a", failureMessageLimit) + " …(cut)\n"))
	g.Expect(strings.Count(out.String(), "\n")).To(Equal(1))
}
