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
	"fmt"
	"math"
)

// Line is y = Intercept + Slope·x.
type Line struct {
	Slope, Intercept float64
}

// At is the line's value at x.
func (l Line) At(x float64) float64 { return l.Intercept + l.Slope*x }

// Fit is the ordinary least-squares line through the points (xs[i], ys[i]):
// the per-peering cost is its slope, whatever the fixed cost (the intercept).
// It needs at least two distinct xs.
func Fit(xs, ys []float64) (Line, error) {
	if len(xs) != len(ys) {
		return Line{}, fmt.Errorf("fit: %d xs for %d ys", len(xs), len(ys))
	}
	n := float64(len(xs))
	var sx, sy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if len(xs) < 2 || sxx == 0 || math.IsNaN(sxx) {
		return Line{}, fmt.Errorf("fit: need at least two different peering counts, have %v", xs)
	}
	slope := sxy / sxx
	return Line{Slope: slope, Intercept: my - slope*mx}, nil
}
