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
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
)

// Step is what one step measured.
type Step struct {
	// Peers is the number of stand-in peerings after the step, Added how many
	// it created.
	Peers, Added int
	// Ready is commit → virtual node and ForeignCluster both Ready, per added
	// peering; NodeReady and ForeignClusterReady each alone. Ready.Wall is from
	// the first commit to the last peering Ready.
	Ready                          podbench.Sample
	NodeReady, ForeignClusterReady []time.Duration
	// State is rome's manager once settled with all Peers peerings.
	State State
	// CPU is what each lab process used from the first commit to settled.
	CPU podbench.CPU
}

// Teardown is the deletion of every peering at once.
type Teardown struct {
	Peers int
	// Wall is from the deletes to the last ForeignCluster and virtual node gone.
	Wall  time.Duration
	State State
	CPU   podbench.CPU
}

// Extrapolated is the target's peering count.
const Extrapolated = 100

// Slopes are least-squares lines over the steps, y against the peerings.
type Slopes struct {
	Goroutines, RSSMiB, HeapMiB, ManagerIdleCPU Line
}

// FitSteps fits the footprint of the steps against their peering counts.
func FitSteps(steps []Step) (Slopes, error) {
	var xs, g, rss, heap, cpu []float64
	for _, s := range steps {
		xs = append(xs, float64(s.Peers))
		g = append(g, float64(s.State.Footprint.Goroutines))
		rss = append(rss, float64(s.State.Footprint.RSSKB)/1024)
		heap = append(heap, float64(s.State.Footprint.HeapInuseKB)/1024)
		cpu = append(cpu, s.State.IdleCPU[RomeManager])
	}
	var out Slopes
	for _, f := range []struct {
		ys  []float64
		out *Line
	}{{g, &out.Goroutines}, {rss, &out.RSSMiB}, {heap, &out.HeapMiB}, {cpu, &out.ManagerIdleCPU}} {
		l, err := Fit(xs, f.ys)
		if err != nil {
			return out, err
		}
		*f.out = l
	}
	return out, nil
}

// WriteTable prints one row per step, the baseline first and the state after
// deleting everything last: commit → Ready percentiles and rome's manager's
// footprint.
func WriteTable(w io.Writer, baseline State, steps []Step, down *Teardown) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "peers\tadded\tready p50\tp99\tmax\twall\tunfinished\tgoroutines\tVmRSS\theap in use\tsessions\tworkers\tsettled\t")
	footprint := func(s State) string {
		f := s.Footprint
		return fmt.Sprintf("%d\t%s\t%s\t%d\t%d\t%s\t", f.Goroutines, mib(f.RSSKB), mib(f.HeapInuseKB), f.Sessions, f.Workers, yesNo(s.Settled))
	}
	fmt.Fprintf(tw, "0 (before)\t-\t-\t-\t-\t-\t-\t%s\n", footprint(baseline))
	for _, s := range steps {
		sum := podbench.Summarize(s.Ready)
		fmt.Fprintf(tw, "%d\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Peers, s.Added, dur(sum.P50), dur(sum.P99), dur(sum.Max), dur(sum.Wall), sum.Unfinished, footprint(s.State))
	}
	if down != nil {
		fmt.Fprintf(tw, "0 (after deleting %d)\t-\t-\t-\t-\t%s\t-\t%s\n", down.Peers, dur(down.Wall), footprint(down.State))
	}
	return tw.Flush()
}

// WriteCPUTable prints, per step, the CPU seconds rome's manager and both API
// servers used from the first commit to settled, and their CPU per second
// once settled (peerings only kept alive), in % of one core.
func WriteCPUTable(w io.Writer, baseline State, steps []Step, down *Teardown) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "peers\tCPU s: manager\trome API\tmilan API\tlab\tsettled, % core: manager\trome API\tmilan API\tlab\t")
	idle := func(s State) string {
		var total float64
		for _, v := range s.IdleCPU {
			total += v
		}
		return fmt.Sprintf("%s\t%s\t%s\t%s\t", pct(s.IdleCPU[RomeManager]), pct(s.IdleCPU[RomeAPIServer]), pct(s.IdleCPU[MilanAPI]), pct(total))
	}
	cpu := func(c podbench.CPU) string {
		return fmt.Sprintf("%.1f\t%.1f\t%.1f\t%.1f\t", c[RomeManager].Seconds(), c[RomeAPIServer].Seconds(), c[MilanAPI].Seconds(), c.Total().Seconds())
	}
	fmt.Fprintf(tw, "0 (before)\t-\t-\t-\t-\t%s\n", idle(baseline))
	for _, s := range steps {
		fmt.Fprintf(tw, "%d\t%s%s\n", s.Peers, cpu(s.CPU), idle(s.State))
	}
	if down != nil {
		fmt.Fprintf(tw, "0 (after deleting %d)\t%s%s\n", down.Peers, cpu(down.CPU), idle(down.State))
	}
	return tw.Flush()
}

// WriteSlopes prints the per-peering slopes and their value at Extrapolated
// peerings, beside the measured one when a step had exactly that many.
func WriteSlopes(w io.Writer, steps []Step) error {
	sl, err := FitSteps(steps)
	if err != nil {
		fmt.Fprintf(w, "no slope: %v\n", err)
		return nil
	}
	var xs []string
	var at *Step
	for i, s := range steps {
		xs = append(xs, fmt.Sprint(s.Peers))
		if s.Peers == Extrapolated {
			at = &steps[i]
		}
	}
	fmt.Fprintf(w, "per peering, least squares over %s peerings:\n", strings.Join(xs, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tper peering\tat 0 (intercept)\tat %d, fitted\tat %d, measured\t\n", Extrapolated, Extrapolated)
	row := func(name string, l Line, unit string, measured func(Step) float64) {
		m := "-"
		if at != nil {
			m = fmt.Sprintf("%.1f%s", measured(*at), unit)
		}
		fmt.Fprintf(tw, "%s\t%+.2f%s\t%.1f%s\t%.1f%s\t%s\t\n", name, l.Slope, unit, l.Intercept, unit, l.At(Extrapolated), unit, m)
	}
	row("goroutines", sl.Goroutines, "", func(s Step) float64 { return float64(s.State.Footprint.Goroutines) })
	row("VmRSS", sl.RSSMiB, " MiB", func(s Step) float64 { return float64(s.State.Footprint.RSSKB) / 1024 })
	row("Go heap in use", sl.HeapMiB, " MiB", func(s Step) float64 { return float64(s.State.Footprint.HeapInuseKB) / 1024 })
	row("manager CPU settled", scale(sl.ManagerIdleCPU, 100), " % core", func(s Step) float64 { return 100 * s.State.IdleCPU[RomeManager] })
	return tw.Flush()
}

func scale(l Line, k float64) Line { return Line{Slope: k * l.Slope, Intercept: k * l.Intercept} }

func mib(kb int) string { return fmt.Sprintf("%.1f MiB", float64(kb)/1024) }

func pct(perSecond float64) string { return fmt.Sprintf("%.1f", 100*perSecond) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func dur(d time.Duration) string {
	switch {
	case d == podbench.Unknown:
		return "unfinished"
	case d < 10*time.Second:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(100 * time.Millisecond).String()
	}
}

// Report is what peers.json holds.
type Report struct {
	StartedAt time.Time `json:"startedAt"`
	// CPUs and LoadAverage describe the machine when the run started.
	CPUs        int    `json:"cpus"`
	LoadAverage string `json:"loadAverageAtStart"`
	StandIns    string `json:"standIns"`
	Counts      []int  `json:"counts"`
	// Baseline is rome's manager with its one real peering (milan), before
	// any stand-in.
	Baseline State           `json:"baseline"`
	Steps    []StepReport    `json:"steps"`
	Teardown *TeardownReport `json:"teardown,omitempty"`
	// Slopes are per peering, over the steps; absent with fewer than two.
	Slopes *Slopes `json:"slopes,omitempty"`
}

// StepReport is a Step in milliseconds and CPU seconds.
type StepReport struct {
	Peers      int `json:"peers"`
	Added      int `json:"added"`
	Unfinished int `json:"unfinished"`
	// P50, P99 and Max are commit → both Ready; null when among the unfinished.
	P50Ms  *float64 `json:"p50Ms"`
	P99Ms  *float64 `json:"p99Ms"`
	MaxMs  *float64 `json:"maxMs"`
	WallMs float64  `json:"wallMs"`
	// Latencies of the peerings that got there, in commit order.
	ReadyMs               []float64          `json:"readyMs"`
	NodeReadyMs           []float64          `json:"nodeReadyMs"`
	ForeignClusterReadyMs []float64          `json:"foreignClusterReadyMs"`
	State                 State              `json:"state"`
	CPUSeconds            map[string]float64 `json:"cpuSeconds"`
}

// TeardownReport is a Teardown in milliseconds and CPU seconds.
type TeardownReport struct {
	Peers      int                `json:"peers"`
	WallMs     float64            `json:"wallMs"`
	State      State              `json:"state"`
	CPUSeconds map[string]float64 `json:"cpuSeconds"`
}

// Reported converts a step for the JSON.
func Reported(s Step) StepReport {
	sum := podbench.Summarize(s.Ready)
	return StepReport{Peers: s.Peers, Added: s.Added, Unfinished: sum.Unfinished,
		P50Ms: msOrNull(sum.P50), P99Ms: msOrNull(sum.P99), MaxMs: msOrNull(sum.Max), WallMs: ms(sum.Wall),
		ReadyMs: msAll(s.Ready.Latencies), NodeReadyMs: msAll(s.NodeReady), ForeignClusterReadyMs: msAll(s.ForeignClusterReady),
		State: s.State, CPUSeconds: seconds(s.CPU)}
}

// ReportedTeardown converts a teardown for the JSON.
func ReportedTeardown(t Teardown) *TeardownReport {
	return &TeardownReport{Peers: t.Peers, WallMs: ms(t.Wall), State: t.State, CPUSeconds: seconds(t.CPU)}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// msOrNull is null in the JSON for a percentile among unfinished peerings.
func msOrNull(d time.Duration) *float64 {
	if d == podbench.Unknown {
		return nil
	}
	v := ms(d)
	return &v
}

func msAll(ds []time.Duration) []float64 {
	out := make([]float64, 0, len(ds))
	for _, d := range ds {
		out = append(out, ms(d))
	}
	return out
}

func seconds(c podbench.CPU) map[string]float64 {
	out := map[string]float64{}
	for k, v := range c {
		out[k] = v.Seconds()
	}
	return out
}
