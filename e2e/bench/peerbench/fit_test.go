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

package peerbench

import (
	"testing"

	. "github.com/onsi/gomega"
)

func TestFitFindsTheLineThroughExactPoints(t *testing.T) {
	g := NewWithT(t)
	// 300 goroutines at rest, 12 per peering.
	l, err := Fit([]float64{1, 10, 25, 50}, []float64{312, 420, 600, 900})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(l.Slope).To(BeNumerically("~", 12, 1e-9))
	g.Expect(l.Intercept).To(BeNumerically("~", 300, 1e-9))
	g.Expect(l.At(100)).To(BeNumerically("~", 1500, 1e-9))
}

func TestFitIsLeastSquaresNotEndpoints(t *testing.T) {
	g := NewWithT(t)
	// (0,0) (1,3) (2,0) (3,3): the endpoints alone give slope 1; least
	// squares: mean x 1.5, mean y 1.5, Sxy = 3, Sxx = 5, so slope 0.6 and
	// intercept 1.5 - 0.6·1.5 = 0.6.
	l, err := Fit([]float64{0, 1, 2, 3}, []float64{0, 3, 0, 3})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(l.Slope).To(BeNumerically("~", 0.6, 1e-9))
	g.Expect(l.Intercept).To(BeNumerically("~", 0.6, 1e-9))
}

func TestFitNeedsTwoDifferentCounts(t *testing.T) {
	g := NewWithT(t)
	_, err := Fit([]float64{10}, []float64{5})
	g.Expect(err).To(MatchError(ContainSubstring("two different peering counts")))
	_, err = Fit([]float64{10, 10}, []float64{5, 6})
	g.Expect(err).To(HaveOccurred())
	_, err = Fit([]float64{1, 2}, []float64{5})
	g.Expect(err).To(HaveOccurred())
	_, err = Fit(nil, nil)
	g.Expect(err).To(HaveOccurred())
}
