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

package podbench

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Plot geometry, in SVG user units.
const (
	panelW, panelH = 420, 320
	marginL        = 56
	marginR        = 16
	marginT        = 40
	marginB        = 84
)

// series colours: vanilla blue, offloaded orange, two hops green.
var colour = map[Mode]string{Vanilla: "#1f77b4", Offloaded: "#ff7f0e", TwoHops: "#2ca02c"}

// PlotCDF draws one panel per batch size: the fraction of pods Running against
// time since their create, every path on the same axes, with their
// p99 marked. Unfinished pods keep a curve below 1. When the batches' load
// was sampled, a second row shows, per batch, how busy the machine was
// through each path's batch (loadPanel).
func PlotCDF(results []Result) string {
	var b strings.Builder
	w := panelW * max(len(results), 1)
	h := panelH
	if sampledLoad(results) {
		h = 2 * panelH
	}
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	for i, r := range results {
		fmt.Fprintf(&b, `<g transform="translate(%d,0)">`+"\n", i*panelW)
		cdfPanel(&b, r)
		b.WriteString("</g>\n")
		if h > panelH {
			fmt.Fprintf(&b, `<g transform="translate(%d,%d)">`+"\n", i*panelW, panelH)
			loadPanel(&b, r)
			b.WriteString("</g>\n")
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func sampledLoad(results []Result) bool {
	for _, r := range results {
		for _, m := range r.Modes() {
			if len(r.Sample(m).Load) > 0 {
				return true
			}
		}
	}
	return false
}

// loadPanel draws the machine's busy share against seconds since each
// path's first sample, every path on the same axes, with the saturation
// threshold (busyThreshold) dashed: a tail the CDF shows is a saturated
// machine when its path's curve sits on that line.
func loadPanel(b *strings.Builder, r Result) {
	var longest time.Duration
	for _, m := range r.Modes() {
		if l := r.Sample(m).Load; len(l) > 0 {
			longest = max(longest, l[len(l)-1].At.Sub(l[0].At))
		}
	}
	xMax := niceCeil(seconds(longest))
	x, y := axes(b, fmt.Sprintf("%d pods: the machine's CPU busy, second by second", r.Pods), "seconds since the first create", xMax)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#d62728" stroke-dasharray="4 3"/>`+"\n", x(0), y(busyThreshold), x(xMax), y(busyThreshold))
	modes := r.Modes()
	for j, m := range modes {
		s := r.Sample(m)
		if len(s.Load) == 0 {
			continue
		}
		pts := make([]string, 0, len(s.Load))
		for _, l := range s.Load {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(seconds(l.At.Sub(s.Load[0].At))), y(l.MachineBusy)))
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>`+"\n", colour[m], strings.Join(pts, " "))
		load := batchLoad(s)
		legend(b, len(modes)-1-j, colour[m], fmt.Sprintf("%s  %.0f %% busy, saturated %d of %d s", m, 100*load.MachineBusy, load.Saturated, load.Seconds))
	}
}

// cdfPanel draws one batch's latency curves, every path on the same axes.
func cdfPanel(b *strings.Builder, r Result) {
	var slowest time.Duration
	for _, m := range r.Modes() {
		slowest = max(slowest, slices.Max(append(slices.Clone(r.Sample(m).Latencies), 0)))
	}
	x, y := axes(b, fmt.Sprintf("%d pods: create → Running, as seen by the creator", r.Pods), "seconds", niceCeil(seconds(slowest)))
	modes := r.Modes()
	for j, m := range modes {
		s := r.Sample(m)
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`+"\n", colour[m], cdfPoints(s, x, y))
		sum := Summarize(s)
		label := fmt.Sprintf("%s  p99 %s", m, dur(sum.P99))
		if sum.P99 != Unknown {
			fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-dasharray="4 3"/>`+"\n", x(seconds(sum.P99)), y(0), x(seconds(sum.P99)), y(0.99), colour[m])
		}
		legend(b, len(modes)-1-j, colour[m], label)
	}
}

// axes draws a panel's title, frame, ticks and grid for x from 0 to xMax
// seconds and y from 0 to 1, and returns the maps from those to the panel.
func axes(b *strings.Builder, title, xLabel string, xMax float64) (x, y func(float64) float64) {
	plotW, plotH := float64(panelW-marginL-marginR), float64(panelH-marginT-marginB)
	x = func(s float64) float64 { return marginL + s/xMax*plotW }
	y = func(f float64) float64 { return marginT + (1-f)*plotH }
	fmt.Fprintf(b, `<text x="%d" y="20" font-weight="bold">%s</text>`+"\n", marginL, title)
	fmt.Fprintf(b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#999"/>`+"\n", marginL, marginT, plotW, plotH)
	for i := 0; i <= 4; i++ {
		s, f := xMax*float64(i)/4, float64(i)/4
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(s), y(0)+16, trimFloat(s))
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", x(0)-6, y(f)+4, trimFloat(f))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#eee"/>`+"\n", x(0), y(f), x(xMax), y(f))
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(xMax/2), y(0)+32, xLabel)
	return x, y
}

// legend writes a series' colour and label on line row, counted up from
// the panel's bottom.
func legend(b *strings.Builder, row int, colour, label string) {
	ly := panelH - 12 - 14*row
	fmt.Fprintf(b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s</text>`+"\n",
		marginL, ly-4, marginL+20, ly-4, colour, marginL+26, ly, label)
}

// cdfPoints is the step curve of a sample: after the k-th fastest pod, k/n are Running.
func cdfPoints(s Sample, x func(float64) float64, y func(float64) float64) string {
	sorted := slices.Clone(s.Latencies)
	slices.Sort(sorted)
	n := float64(len(sorted) + s.Unfinished)
	pts := []string{fmt.Sprintf("%.1f,%.1f", x(0), y(0))}
	for k, l := range sorted {
		pts = append(pts, fmt.Sprintf("%.1f,%.1f %.1f,%.1f", x(seconds(l)), y(float64(k)/n), x(seconds(l)), y(float64(k+1)/n)))
	}
	return strings.Join(pts, " ")
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// niceCeil rounds up to 1, 2 or 5 times a power of ten, so axis ticks read well.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 4, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}
