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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

const metrics = `# HELP go_goroutines Number of goroutines that currently exist.
# TYPE go_goroutines gauge
go_goroutines 412
spillway_peering_workers{loop="node"} 3
spillway_peering_workers{loop="probe"} 4
spillway_peering_workers_total 100
spillway_peering_sessions 3
`

func TestSumSeriesAddsTheLabelledSeriesOfOneName(t *testing.T) {
	g := NewWithT(t)
	values, err := ParseSamples(strings.NewReader(metrics))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(values).To(HaveKeyWithValue("go_goroutines", 412.0))
	// Another metric whose name starts with this one's is not added in.
	g.Expect(SumSeries(values, "spillway_peering_workers")).To(Equal(7.0))
	g.Expect(SumSeries(values, `spillway_peering_workers{loop="probe"}`)).To(Equal(4.0))
	g.Expect(SumSeries(values, "spillway_not_exposed")).To(BeZero())
}

func TestParseSamplesRejectsAValueThatIsNotANumber(t *testing.T) {
	g := NewWithT(t)
	_, err := ParseSamples(strings.NewReader("go_goroutines many\n"))
	g.Expect(err).To(MatchError(ContainSubstring(`"go_goroutines many"`)))
}
