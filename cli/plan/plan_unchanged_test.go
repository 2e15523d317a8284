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
	"testing"

	. "github.com/onsi/gomega"
)

func TestPlanOfAnUnchangedFleetIsEmpty(t *testing.T) {
	g := NewWithT(t)
	p := compute(t, copyFleet(t), copyFleet(t), Options{})
	g.Expect(p.Clusters).To(BeEmpty())
	g.Expect(p.Rejected).To(BeFalse())
	g.Expect(text(t, p)).To(Equal("Plan: no change to offloading, peerings or offers.\n"))
}
