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

package reflectbench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
)

// Table prints one row per kind: the local watcher's (vanilla) and the
// copy's percentiles, and their ratio.
func Table(w io.Writer, batches []Batch) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tobjects\tvanilla p50\tvanilla p99\treflected p50\treflected p99\tp50 ×\tp99 ×\tunfinished\t")
	for _, b := range batches {
		v, r := podbench.Summarize(b.Vanilla), podbench.Summarize(b.Reflected)
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%d\t\n", b.Kind, b.Objects, ms(v.P50), ms(v.P99), ms(r.P50), ms(r.P99),
			podbench.Ratio(r.P50, v.P50), podbench.Ratio(r.P99, v.P99), r.Unfinished)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "\nmilan's API server during the updates: the copies' PUTs, and the validating webhooks' calls on UPDATE")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tPUTs\tmean\tover 5 ms\twebhook calls\tmean\tover 5 ms\t")
	for _, b := range batches {
		p := b.Provider
		fmt.Fprintf(tw, "%s\t%.0f\t%.2f ms\t%.1f %%\t%.0f\t%.2f ms\t%.1f %%\t\n", b.Kind, p.Puts.Count, p.Puts.MeanMs(), 100*p.Puts.SlowShare(),
			p.Webhooks.Count, p.Webhooks.MeanMs(), 100*p.Webhooks.SlowShare())
	}
	_ = tw.Flush()
}

// slowWindowWidth places the tail in time: a burst of work beside the
// updates (the reflectors' resync, a garbage collection) fills one or two
// windows, a slow path spreads over all of them.
const slowWindowWidth = 5 * time.Second

// SlowWindows prints, per kind, the windows the slowest 1 % of the updates
// were sent in, the fullest first, for the local watcher and the copies.
func SlowWindows(w io.Writer, batches []Batch) {
	fmt.Fprintf(w, "\nThe slowest 1 %% of the updates by when they were sent, in %s windows, the fullest first\n", slowWindowWidth)
	for _, b := range batches {
		for _, side := range []struct {
			name string
			s    podbench.Sample
		}{{"vanilla", b.Vanilla}, {"reflected", b.Reflected}} {
			windows := podbench.SlowWindows(side.s, slowWindowWidth)
			slices.SortStableFunc(windows, func(a, b podbench.SlowWindow) int { return b.Pods - a.Pods })
			fmt.Fprintf(w, "  %s %s: %d windows of %d:", b.Kind, side.name, len(windows), int(side.s.Wall/slowWindowWidth)+1)
			for _, win := range windows[:min(len(windows), 8)] {
				fmt.Fprintf(w, " %ds (%s) %d (max %s);", win.FromMs/1000, win.Start.Format(time.TimeOnly), win.Pods,
					time.Duration(win.MaxMs)*time.Millisecond)
			}
			fmt.Fprintln(w)
		}
	}
}

func ms(d time.Duration) string {
	if d == podbench.Unknown {
		return "—"
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

// Reported is a batch in the JSON report, in milliseconds.
type Reported struct {
	Kind         string  `json:"kind"`
	Objects      int     `json:"objects"`
	VanillaP50   float64 `json:"vanillaP50Ms"`
	VanillaP99   float64 `json:"vanillaP99Ms"`
	ReflectedP50 float64 `json:"reflectedP50Ms"`
	ReflectedP99 float64 `json:"reflectedP99Ms"`
	Unfinished   int     `json:"unfinished"`
	// The provider's side of the copies' updates (ProviderWrites).
	ProviderPuts             float64 `json:"providerPuts"`
	ProviderPutMeanMs        float64 `json:"providerPutMeanMs"`
	ProviderPutSlowShare     float64 `json:"providerPutOver5msShare"`
	ProviderWebhookCalls     float64 `json:"providerWebhookCalls"`
	ProviderWebhookMeanMs    float64 `json:"providerWebhookMeanMs"`
	ProviderWebhookSlowShare float64 `json:"providerWebhookOver5msShare"`
}

// Report is the JSON form of a batch.
func Report(b Batch) Reported {
	v, r := podbench.Summarize(b.Vanilla), podbench.Summarize(b.Reflected)
	f := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	p := b.Provider
	return Reported{Kind: b.Kind, Objects: b.Objects, VanillaP50: f(v.P50), VanillaP99: f(v.P99), ReflectedP50: f(r.P50), ReflectedP99: f(r.P99), Unfinished: r.Unfinished,
		ProviderPuts: p.Puts.Count, ProviderPutMeanMs: p.Puts.MeanMs(), ProviderPutSlowShare: p.Puts.SlowShare(),
		ProviderWebhookCalls: p.Webhooks.Count, ProviderWebhookMeanMs: p.Webhooks.MeanMs(), ProviderWebhookSlowShare: p.Webhooks.SlowShare()}
}

// Plot draws p50 and p99 bars, vanilla and reflected, per kind, as SVG.
func Plot(batches []Batch) string {
	const barW, gap, h, top, bottom = 28, 70, 260, 30, 40
	maxMs := 1.0
	for _, b := range batches {
		for _, s := range []podbench.Summary{podbench.Summarize(b.Vanilla), podbench.Summarize(b.Reflected)} {
			if s.P99 != podbench.Unknown {
				maxMs = max(maxMs, float64(s.P99)/float64(time.Millisecond))
			}
		}
	}
	width := 60 + len(batches)*(4*barW+gap)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, h+top+bottom)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/><text x="10" y="18">update → seen, ms (vanilla: a watcher of rome; reflected: the copy on milan)</text>`+"\n")
	colours := []string{"#9ecae1", "#1f77b4", "#fdae6b", "#ff7f0e"}
	for i, b := range batches {
		v, r := podbench.Summarize(b.Vanilla), podbench.Summarize(b.Reflected)
		x0 := 50 + i*(4*barW+gap)
		for j, d := range []time.Duration{v.P50, v.P99, r.P50, r.P99} {
			val := 0.0
			if d != podbench.Unknown {
				val = float64(d) / float64(time.Millisecond)
			}
			bh := int(val / maxMs * h)
			fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/><text x="%d" y="%d" font-size="9">%.0f</text>`+"\n",
				x0+j*barW, top+h-bh, barW-4, bh, colours[j], x0+j*barW, top+h-bh-3, val)
		}
		fmt.Fprintf(&sb, `<text x="%d" y="%d">%s (%d)</text>`+"\n", x0, top+h+16, b.Kind, b.Objects)
		fmt.Fprintf(&sb, `<text x="%d" y="%d" font-size="9">p50 p99 | p50 p99</text>`+"\n", x0, top+h+30)
	}
	sb.WriteString("</svg>\n")
	return sb.String()
}
