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
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// RestCPU is what each lab process used over a window in which a batch's
// pods all ran and nothing was created or deleted. The batch's own CPU
// (from the first create to the last pod Running) mixes the pods' creation
// with what their mere presence costs; a slower batch keeps them present
// for longer. Issue 17's twenty-second round saw the offloaded path cost
// 67 s more when 10,000 pods took 250 s longer, vanilla 3.5 s: this window
// tells the standing cost apart, process by process.
type RestCPU struct {
	CPU CPU
	// Window is how long the window lasted, measured, not as asked.
	Window time.Duration
}

// MillisPerSecond is what process k used, in milliseconds of CPU per second
// of the window (1,000 is one core); 0 for an empty window.
func (r RestCPU) MillisPerSecond(k string) float64 { return r.perSecond(r.CPU[k]) }

// TotalMillisPerSecond is the lab's CPU per second of the window.
func (r RestCPU) TotalMillisPerSecond() float64 { return r.perSecond(r.CPU.Total()) }

func (r RestCPU) perSecond(used time.Duration) float64 {
	if r.Window <= 0 {
		return 0
	}
	return float64(used) / float64(r.Window) * 1000
}

// rest measures the lab's processes over Config.Rest with a batch's pods
// Running. On the offloaded path it also profiles both managers over the
// window (<cluster>-manager-<n>-rest-{cpu,heap}.pprof): a standing cost
// in either is theirs to explain. With lab.EnvAPIServerProfiling it
// profiles every API server too, on every path
// (<cluster>-apiserver-<mode>-<n>-rest-{cpu,heap}.pprof).
func (b *Bench) rest(ctx context.Context, p path, n int) (RestCPU, error) {
	var profiles []*profiler
	if p.mode == Offloaded {
		for _, c := range b.clusters()[:2] {
			profiles = append(profiles, startCPUProfile(ctx, managerPprof(framework.PprofAddress(c)), c.Name+"-manager", b.Config.Rest))
		}
	}
	// Every path's, so that a difference at rest between paths can be
	// traced (the twenty-sixth round traced rome's API server's to its
	// cache consistency check, which lands on whichever path).
	apiServers, err := b.startAPIServerProfiles(ctx, b.Config.Rest)
	if err != nil {
		return RestCPU{}, err
	}
	before, err := ReadCPU(b.clusters()...)
	if err != nil {
		return RestCPU{}, err
	}
	start := time.Now()
	// A measurement window, not a wait for something to happen.
	select {
	case <-time.After(b.Config.Rest):
	case <-ctx.Done():
		return RestCPU{}, ctx.Err()
	}
	after, err := ReadCPU(b.clusters()...)
	if err != nil {
		return RestCPU{}, err
	}
	r := RestCPU{CPU: after.Since(before), Window: time.Since(start)}
	for _, prof := range profiles {
		if err := prof.finish(ctx, filepath.Join(b.resultsDir, "pprof"), fmt.Sprintf("%s-%d-rest", prof.name, n), b.log); err != nil {
			return r, err
		}
	}
	for _, prof := range apiServers {
		if err := prof.finish(ctx, filepath.Join(b.resultsDir, "pprof"), fmt.Sprintf("%s-%s-%d-rest", prof.name, p.mode, n), b.log); err != nil {
			return r, err
		}
	}
	fmt.Fprintf(b.log, "bench: %d %s pods at rest for %s: the lab used %.0f ms of CPU per second\n", n, p.mode, r.Window.Round(time.Millisecond), r.TotalMillisPerSecond())
	return r, nil
}

// restModes are the paths in the order they ran.
var restModes = []Mode{Vanilla, Local, Offloaded, TwoHops}

// WriteRestTable prints, per lab process, the milliseconds of CPU per
// second it used with each batch's pods at rest, by path; nothing when no
// batch measured a rest window.
func WriteRestTable(w io.Writer, results []Result) error {
	names := map[string]bool{}
	var cols []string
	var windows []RestCPU
	for _, r := range results {
		for _, m := range restModes {
			rc, ok := r.Rest[m]
			if !ok {
				continue
			}
			cols = append(cols, fmt.Sprintf("%d %s", r.Pods, m))
			windows = append(windows, rc)
			for k := range rc.CPU {
				names[k] = true
			}
		}
	}
	if len(windows) == 0 {
		return nil
	}
	tw := processTable(w, "CPU ms/s at rest", cols, names, func(i int, k string) float64 { return windows[i].MillisPerSecond(k) })
	fmt.Fprint(tw, "lab\t")
	for _, rc := range windows {
		fmt.Fprintf(tw, "%.1f\t", rc.TotalMillisPerSecond())
	}
	fmt.Fprintln(tw)
	return tw.Flush()
}

// reportedRest is the JSON form: milliseconds of CPU per second by path and
// process; nil when no window was measured.
func reportedRest(r Result) map[Mode]map[string]float64 {
	if len(r.Rest) == 0 {
		return nil
	}
	out := map[Mode]map[string]float64{}
	for m, rc := range r.Rest {
		out[m] = map[string]float64{}
		for k := range rc.CPU {
			out[m][k] = rc.MillisPerSecond(k)
		}
	}
	return out
}
