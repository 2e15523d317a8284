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
	// KubeletLiveHeap is that process's heap after a garbage collection:
	// before the measured pods, once they run, and once they are gone.
	KubeletLiveHeap LiveHeaps
	// VanillaCPU and OffloadedCPU are what each lab process used from the
	// first create to the last pod Running.
	VanillaCPU, OffloadedCPU CPU
	// VanillaTraffic and OffloadedTraffic are the API requests counted from
	// the first create until the last pod was gone; VanillaCreation and
	// OffloadedCreation only until the last pod was Running.
	VanillaTraffic, OffloadedTraffic   Traffic
	VanillaCreation, OffloadedCreation Traffic
	// Local is the reference for the consumer's manager's memory, nil when
	// the run left it out.
	Local *LocalResult
	// TwoHops is the path through the broker, nil when the run left it out.
	TwoHops *TwoHopsResult
	// Rest is the lab's CPU with each path's pods at rest, by path; empty
	// when the run measured none (Config.Rest 0).
	Rest map[Mode]RestCPU
}

// recordRest keeps path m's rest window, if it measured one.
func (r *Result) recordRest(m Mode, rest *RestCPU) {
	if rest == nil {
		return
	}
	if r.Rest == nil {
		r.Rest = map[Mode]RestCPU{}
	}
	r.Rest[m] = *rest
}

// LiveHeaps is a process's heap after a garbage collection (liveHeap), in
// bytes, at three points of a batch; 0 where it was not read. Idle (the
// process warmed up, no measured pod yet) and Deleted (every measured pod
// gone) say what the pods cost while they ran (Running − Idle) and whether
// it all went with them (target 3 of issue 17: flat after the deletion).
type LiveHeaps struct {
	Idle, Running, Deleted uint64
}

// TwoHopsResult is one batch through the broker: rome → genoa → milan.
type TwoHopsResult struct {
	Sample  Sample
	CPU     CPU
	Traffic Traffic
	// KubeletBefore and KubeletAfter are rome's manager, restarted for this
	// path as for one hop.
	KubeletBefore, KubeletAfter framework.Memory
}

// Modes are the paths the batch measured, in the order they ran.
func (r Result) Modes() []Mode {
	if r.TwoHops == nil {
		return []Mode{Vanilla, Offloaded}
	}
	return []Mode{Vanilla, Offloaded, TwoHops}
}

// Sample is what the creator saw on path m.
func (r Result) Sample(m Mode) Sample {
	switch m {
	case Offloaded:
		return r.Offloaded
	case TwoHops:
		if r.TwoHops != nil {
			return r.TwoHops.Sample
		}
		return Sample{}
	}
	return r.Vanilla
}

// CPU is what the lab's processes used on path m.
func (r Result) CPU(m Mode) CPU {
	switch m {
	case Offloaded:
		return r.OffloadedCPU
	case TwoHops:
		if r.TwoHops != nil {
			return r.TwoHops.CPU
		}
		return nil
	}
	return r.VanillaCPU
}

// Traffic is the API requests counted on path m.
func (r Result) Traffic(m Mode) Traffic {
	switch m {
	case Offloaded:
		return r.OffloadedTraffic
	case TwoHops:
		if r.TwoHops != nil {
			return r.TwoHops.Traffic
		}
		return Traffic{}
	}
	return r.VanillaTraffic
}

// Report is everything a run measured, as written to JSON.
type Report struct {
	StartedAt  time.Time `json:"startedAt"`
	CreatorQPS float64   `json:"creatorQPS"`
	Workers    int       `json:"creatorWorkers"`
	LabQPS     int       `json:"labQPS"`
	LabBurst   int       `json:"labBurst"`
	Provider   string    `json:"provider"`
	Lab        string    `json:"lab"`
	// ManagerMemoryLimit is the GOMEMLIMIT the lab's managers ran with
	// (framework.EnvManagerMemoryLimit); empty for none.
	ManagerMemoryLimit string        `json:"managerMemoryLimit,omitempty"`
	Runs               []ReportedRun `json:"runs"`
}

// ReportedRun is one batch size in the JSON report.
type ReportedRun struct {
	Pods      int            `json:"pods"`
	Vanilla   ReportedSample `json:"vanilla"`
	Offloaded ReportedSample `json:"offloaded"`
	// Ratios are offloaded/vanilla for p50, p90, p99, max and wall; null when
	// a side did not finish.
	Ratios map[string]*float64 `json:"ratios"`
	// TwoHops is the path through the broker; TwoHopsRatios are two-hops/vanilla
	// and TwoHopsVsOneHop two-hops/offloaded, keyed as Ratios.
	TwoHops         *ReportedSample     `json:"twoHops,omitempty"`
	TwoHopsRatios   map[string]*float64 `json:"twoHopsRatios,omitempty"`
	TwoHopsVsOneHop map[string]*float64 `json:"twoHopsVsOneHop,omitempty"`
	// CPUSeconds is what each lab process used during the batch, by path.
	CPUSeconds map[Mode]map[string]float64 `json:"cpuSeconds"`
	// RestCPU is what each lab process used per second, in milliseconds,
	// with the batch's pods at rest, by path (RestCPU).
	RestCPU map[Mode]map[string]float64 `json:"restCPUMillisPerSecond,omitempty"`
	// WritesPerPod are the writes per pod, leases left out: vanilla in milan,
	// offloaded in milan (provider) and rome (consumer).
	WritesPerPod TrafficSummary `json:"writesPerPod"`
	// Requests are the API server requests per pod, by path, cluster and
	// "VERB resource".
	Requests map[Mode]map[string]map[string]float64 `json:"requestsPerPod"`
	// VirtualKubelet is the consumer's manager, in MiB, during the one-hop
	// batch; TwoHopsVirtualKubelet the same process, restarted, during the
	// two-hop batch.
	VirtualKubelet        ReportedMemory  `json:"virtualKubelet"`
	TwoHopsVirtualKubelet *ReportedMemory `json:"twoHopsVirtualKubelet,omitempty"`
	// Local is the reference for the peering's share of that memory.
	Local *ReportedLocal `json:"local,omitempty"`
	// Floor is the CPU against two control planes (WriteFloorTable); nil
	// without the local reference.
	Floor *ReportedFloor `json:"twoControlPlanes,omitempty"`
}

// ReportedMemory is a manager's RSS in MiB: fresh, at its peak, at the end;
// and its heap after a garbage collection before the pods, once they ran
// and once they were gone.
type ReportedMemory struct {
	BeforeMiB          float64 `json:"rssBeforeMiB"`
	PeakMiB            float64 `json:"peakRSSMiB"`
	CurrentMiB         float64 `json:"rssAfterMiB"`
	IdleLiveHeapMiB    float64 `json:"idleLiveHeapMiB,omitempty"`
	LiveHeapMiB        float64 `json:"liveHeapMiB,omitempty"`
	DeletedLiveHeapMiB float64 `json:"deletedLiveHeapMiB,omitempty"`
}

func reportedMemory(before, after framework.Memory) ReportedMemory {
	return ReportedMemory{BeforeMiB: float64(before.Current) / mib, PeakMiB: float64(after.Peak) / mib, CurrentMiB: float64(after.Current) / mib}
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
	// Segments split create → Running at each cluster's scheduling.
	Segments []ReportedSegment `json:"segments,omitempty"`
	// SlowWindows place the slowest 1 % in the batch's time (SlowWindows).
	SlowWindows []SlowWindow `json:"slowWindows,omitempty"`
	// Load is the machine's and the lab's CPU, second by second (LoadSample),
	// and SaturatedSeconds how many of them the machine was saturated.
	Load             []LoadSample `json:"load,omitempty"`
	SaturatedSeconds int          `json:"saturatedSeconds"`
	// ClosedWatches are the watches the API servers closed as too slow to
	// read while the pods were created, by cluster and resource.
	ClosedWatches map[string]Counts `json:"closedWatches,omitempty"`
}

// ReportedSegment is one segment of the way to Running, in milliseconds.
type ReportedSegment struct {
	From string   `json:"from"`
	To   string   `json:"to"`
	Pods int      `json:"pods"`
	P50  *float64 `json:"p50Ms"`
	P99  *float64 `json:"p99Ms"`
	// SlowP50 is the p50 over the slowest 1 % of the path's pods.
	SlowP50 *float64 `json:"slowestP50Ms,omitempty"`
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
	out.SlowWindows = SlowWindows(s, slowWindowWidth)
	out.Load, out.SaturatedSeconds = s.Load, batchLoad(s).Saturated
	out.ClosedWatches = s.ClosedWatches
	for _, seg := range s.Segments {
		out.Segments = append(out.Segments, ReportedSegment{From: seg.From, To: seg.To, Pods: seg.Pods, P50: ms(seg.P50), P99: ms(seg.P99), SlowP50: ms(seg.SlowP50)})
	}
	return out
}

// ratios are a/b for p50, p90, p99, max and wall.
func ratios(a, b Summary) map[string]*float64 {
	return map[string]*float64{"p50": ratio(a.P50, b.P50), "p90": ratio(a.P90, b.P90), "p99": ratio(a.P99, b.P99), "max": ratio(a.Max, b.Max), "wall": ratio(a.Wall, b.Wall)}
}

// Reported converts a result for the JSON report.
func Reported(r Result) ReportedRun {
	v, o := Summarize(r.Vanilla), Summarize(r.Offloaded)
	out := ReportedRun{Pods: r.Pods, Vanilla: reported(r.Vanilla), Offloaded: reported(r.Offloaded), Ratios: ratios(o, v)}
	out.CPUSeconds = map[Mode]map[string]float64{}
	out.Requests = map[Mode]map[string]map[string]float64{}
	for _, m := range r.Modes() {
		out.CPUSeconds[m] = cpuSeconds(r.CPU(m))
		out.Requests[m] = perPod(r.Traffic(m), r.Pods)
	}
	out.RestCPU = reportedRest(r)
	out.WritesPerPod = SummarizeTraffic(r)
	out.VirtualKubelet = reportedMemory(r.KubeletBefore, r.KubeletAfter)
	h := r.KubeletLiveHeap
	out.VirtualKubelet.IdleLiveHeapMiB, out.VirtualKubelet.LiveHeapMiB, out.VirtualKubelet.DeletedLiveHeapMiB =
		float64(h.Idle)/mib, float64(h.Running)/mib, float64(h.Deleted)/mib
	out.Local = reportedLocal(r)
	out.Floor = reportedFloor(r)
	if t := r.TwoHops; t != nil {
		s, two := reported(t.Sample), Summarize(t.Sample)
		out.TwoHops, out.TwoHopsRatios, out.TwoHopsVsOneHop = &s, ratios(two, v), ratios(two, o)
		m := reportedMemory(t.KubeletBefore, t.KubeletAfter)
		out.TwoHopsVirtualKubelet = &m
	}
	return out
}

func perPod(t Traffic, n int) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for cluster, reqs := range t.APIServer {
		out[cluster] = map[string]float64{}
		for k, v := range reqs {
			out[cluster][k.Verb+" "+k.String()] += v / float64(n)
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
		row(tw, r.Pods, "vanilla", v, vc, "-")
		row(tw, r.Pods, "offloaded", o, oc, kubeletMemory(r.KubeletAfter, r.KubeletLiveHeap))
		if r.TwoHops != nil {
			row(tw, r.Pods, "two hops", Summarize(r.TwoHops.Sample), r.TwoHops.CPU.Total(), mibs(r.TwoHops.KubeletAfter.Peak))
		}
		ratioRow(tw, r.Pods, "offloaded/vanilla", o, v, oc, vc)
		if r.TwoHops != nil {
			t, tc := Summarize(r.TwoHops.Sample), r.TwoHops.CPU.Total()
			ratioRow(tw, r.Pods, "two hops/vanilla", t, v, tc, vc)
			ratioRow(tw, r.Pods, "two hops/offloaded", t, o, tc, oc)
		}
	}
	return tw.Flush()
}

// kubeletMemory is the virtual kubelet's column: its peak RSS and, where
// they were read, its heap after a collection once the pods ran, and before
// and after them.
func kubeletMemory(after framework.Memory, heap LiveHeaps) string {
	out := mibs(after.Peak)
	if heap.Running > 0 {
		out += fmt.Sprintf(" (live heap %.0f MiB", float64(heap.Running)/mib)
		if heap.Idle > 0 && heap.Deleted > 0 {
			out += fmt.Sprintf("; idle %.0f, after deletion %.0f", float64(heap.Idle)/mib, float64(heap.Deleted)/mib)
		}
		out += ")"
	}
	return out
}

func row(w io.Writer, pods int, path string, s Summary, cpu time.Duration, rss string) {
	fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t\n", pods, path, dur(s.P50), dur(s.P90), dur(s.P99), dur(s.Max), dur(s.Wall), s.Unfinished, dur(cpu), rss)
}

func ratioRow(w io.Writer, pods int, label string, a, b Summary, aCPU, bCPU time.Duration) {
	fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t\t%s\t\t\n", pods, label,
		times(Ratio(a.P50, b.P50)), times(Ratio(a.P90, b.P90)), times(Ratio(a.P99, b.P99)), times(Ratio(a.Max, b.Max)), times(Ratio(a.Wall, b.Wall)), times(Ratio(aCPU, bCPU)))
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
	processes := map[string]bool{}
	var cols []string
	var cpu []CPU
	for _, r := range results {
		for _, m := range r.Modes() {
			cols = append(cols, fmt.Sprintf("%d %s", r.Pods, m))
			cpu = append(cpu, r.CPU(m))
			for k := range r.CPU(m) {
				processes[k] = true
			}
		}
	}
	tw := processTable(w, "CPU seconds", cols, processes, func(col int, k string) float64 { return cpu[col][k].Seconds() })
	return tw.Flush()
}

// processTable writes the header and one row per lab process, a cell per
// column with one decimal, and returns the writer for rows to add before
// it is flushed.
func processTable(w io.Writer, title string, cols []string, processes map[string]bool, value func(col int, process string) float64) *tabwriter.Writer {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t", title)
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c)
	}
	fmt.Fprintln(tw)
	for _, k := range slices.Sorted(maps.Keys(processes)) {
		fmt.Fprintf(tw, "%s\t", k)
		for i := range cols {
			fmt.Fprintf(tw, "%.1f\t", value(i, k))
		}
		fmt.Fprintln(tw)
	}
	return tw
}
