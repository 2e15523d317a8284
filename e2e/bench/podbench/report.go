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
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// Result is one batch size, both paths.
type Result struct {
	Pods      int
	Vanilla   Sample
	Offloaded Sample
	// Kubelet is the memory of the consumer's manager process, which runs the
	// virtual kubelets: before the batch (fresh process) and after it.
	KubeletBefore, KubeletAfter framework.Memory
	// VanillaCPU and OffloadedCPU are what each lab process used from the
	// first create to the last pod Running.
	VanillaCPU, OffloadedCPU CPU
	// VanillaTraffic and OffloadedTraffic are the API requests counted from
	// the first create until the last pod was gone.
	VanillaTraffic, OffloadedTraffic Traffic
}

// Report is everything a run measured, as written to JSON.
type Report struct {
	StartedAt  time.Time     `json:"startedAt"`
	CreatorQPS float64       `json:"creatorQPS"`
	Workers    int           `json:"creatorWorkers"`
	LabQPS     int           `json:"labQPS"`
	LabBurst   int           `json:"labBurst"`
	Provider   string        `json:"provider"`
	Runs       []ReportedRun `json:"runs"`
}

// ReportedRun is one batch size in the JSON report.
type ReportedRun struct {
	Pods      int            `json:"pods"`
	Vanilla   ReportedSample `json:"vanilla"`
	Offloaded ReportedSample `json:"offloaded"`
	// Ratios are offloaded/vanilla for p50, p90, p99, max and wall; null when
	// a side did not finish.
	Ratios map[string]*float64 `json:"ratios"`
	// CPUSeconds is what each lab process used during the batch, by path.
	CPUSeconds map[Mode]map[string]float64 `json:"cpuSeconds"`
	// WritesPerPod are the writes per pod, leases left out: vanilla in milan,
	// offloaded in milan (provider) and rome (consumer).
	WritesPerPod TrafficSummary `json:"writesPerPod"`
	// Requests are the API server requests per pod, by path, cluster and
	// "VERB resource".
	Requests map[Mode]map[string]map[string]float64 `json:"requestsPerPod"`
	// VirtualKubelet is the consumer's manager, in MiB.
	VirtualKubelet struct {
		BeforeMiB  float64 `json:"rssBeforeMiB"`
		PeakMiB    float64 `json:"peakRSSMiB"`
		CurrentMiB float64 `json:"rssAfterMiB"`
	} `json:"virtualKubelet"`
}

// ReportedSample is one side of a batch, in milliseconds; a percentile that
// falls among unfinished pods is null.
type ReportedSample struct {
	Unfinished  int      `json:"unfinished"`
	P50         *float64 `json:"p50Ms"`
	P90         *float64 `json:"p90Ms"`
	P99         *float64 `json:"p99Ms"`
	Max         *float64 `json:"maxMs"`
	Wall        float64  `json:"wallMs"`
	LatenciesMs []int64  `json:"latenciesMs"`
}

func ms(d time.Duration) *float64 {
	if d == Unknown {
		return nil
	}
	v := float64(d) / float64(time.Millisecond)
	return &v
}

func ratio(o, v time.Duration) *float64 {
	r := Ratio(o, v)
	if math.IsNaN(r) {
		return nil
	}
	return &r
}

const mib = 1 << 20

func reported(s Sample) ReportedSample {
	sum := Summarize(s)
	out := ReportedSample{Unfinished: s.Unfinished, P50: ms(sum.P50), P90: ms(sum.P90), P99: ms(sum.P99), Max: ms(sum.Max), Wall: *ms(s.Wall)}
	sorted := slices.Clone(s.Latencies)
	slices.Sort(sorted)
	for _, l := range sorted {
		out.LatenciesMs = append(out.LatenciesMs, l.Milliseconds())
	}
	return out
}

// Reported converts a result for the JSON report.
func Reported(r Result) ReportedRun {
	v, o := Summarize(r.Vanilla), Summarize(r.Offloaded)
	out := ReportedRun{Pods: r.Pods, Vanilla: reported(r.Vanilla), Offloaded: reported(r.Offloaded), Ratios: map[string]*float64{
		"p50": ratio(o.P50, v.P50), "p90": ratio(o.P90, v.P90), "p99": ratio(o.P99, v.P99), "max": ratio(o.Max, v.Max), "wall": ratio(o.Wall, v.Wall),
	}}
	out.CPUSeconds = map[Mode]map[string]float64{Vanilla: cpuSeconds(r.VanillaCPU), Offloaded: cpuSeconds(r.OffloadedCPU)}
	out.WritesPerPod = SummarizeTraffic(r)
	out.Requests = map[Mode]map[string]map[string]float64{Vanilla: perPod(r.VanillaTraffic, r.Pods), Offloaded: perPod(r.OffloadedTraffic, r.Pods)}
	out.VirtualKubelet.BeforeMiB = float64(r.KubeletBefore.Current) / mib
	out.VirtualKubelet.PeakMiB = float64(r.KubeletAfter.Peak) / mib
	out.VirtualKubelet.CurrentMiB = float64(r.KubeletAfter.Current) / mib
	return out
}

func perPod(t Traffic, n int) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for cluster, reqs := range t.APIServer {
		out[cluster] = map[string]float64{}
		for k, v := range reqs {
			out[cluster][k.Verb+" "+k.Resource] = v / float64(n)
		}
	}
	return out
}

func cpuSeconds(c CPU) map[string]float64 {
	out := map[string]float64{}
	for k, v := range c {
		out[k] = v.Seconds()
	}
	return out
}

// WriteTable prints the results as a table: one row per path and batch size,
// then the ratios and the virtual kubelet's memory.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "pods\tpath\tp50\tp90\tp99\tmax\twall\tunfinished\tlab CPU\tVK peak RSS\t")
	for _, r := range results {
		v, o := Summarize(r.Vanilla), Summarize(r.Offloaded)
		vc, oc := r.VanillaCPU.Total(), r.OffloadedCPU.Total()
		fmt.Fprintf(tw, "%d\tvanilla\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t-\t\n", r.Pods, dur(v.P50), dur(v.P90), dur(v.P99), dur(v.Max), dur(v.Wall), v.Unfinished, dur(vc))
		fmt.Fprintf(tw, "%d\toffloaded\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%.0f MiB\t\n", r.Pods, dur(o.P50), dur(o.P90), dur(o.P99), dur(o.Max), dur(o.Wall), o.Unfinished,
			dur(oc), float64(r.KubeletAfter.Peak)/mib)
		fmt.Fprintf(tw, "%d\toffloaded/vanilla\t%s\t%s\t%s\t%s\t%s\t\t%s\t\t\n", r.Pods,
			times(Ratio(o.P50, v.P50)), times(Ratio(o.P90, v.P90)), times(Ratio(o.P99, v.P99)), times(Ratio(o.Max, v.Max)), times(Ratio(o.Wall, v.Wall)), times(Ratio(oc, vc)))
	}
	return tw.Flush()
}

func dur(d time.Duration) string {
	switch {
	case d == Unknown:
		return "unfinished"
	case d < 10*time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

func times(r float64) string {
	if math.IsNaN(r) {
		return "n/a"
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", r), "0"), ".") + "×"
}

// WriteCPUTable prints the CPU seconds each lab process used during each
// batch, by path: where an offloaded pod's extra cost goes.
func WriteCPUTable(w io.Writer, results []Result) error {
	names := map[string]bool{}
	for _, r := range results {
		for k := range r.VanillaCPU {
			names[k] = true
		}
		for k := range r.OffloadedCPU {
			names[k] = true
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "CPU seconds\t")
	for _, r := range results {
		fmt.Fprintf(tw, "%d vanilla\t%d offloaded\t", r.Pods, r.Pods)
	}
	fmt.Fprintln(tw)
	for _, k := range slices.Sorted(maps.Keys(names)) {
		fmt.Fprintf(tw, "%s\t", k)
		for _, r := range results {
			fmt.Fprintf(tw, "%.1f\t%.1f\t", r.VanillaCPU[k].Seconds(), r.OffloadedCPU[k].Seconds())
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}
