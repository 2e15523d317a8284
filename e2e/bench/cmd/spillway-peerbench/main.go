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

// Command spillway-peerbench peers one consumer (rome) with N stand-in
// providers, added in steps, and reports per step the time from each
// peering's commit (its ForeignCluster created) to its virtual node and
// ForeignCluster Ready, rome's manager's goroutines, memory, peering sessions
// and workers once settled, the CPU of rome's manager and both API servers,
// and the per-peering slopes with their value at 100 peerings; then deletes
// every peering and reads the footprint again (issue 17, target 7). Run by
// `make bench`, never in CI:
//
//	go run ./e2e/bench/cmd/spillway-peerbench
//
// SPILLWAY_BENCH_PEERS="1 10 25 50 100" sets the peerings after each step.
// Results go to bench/results/peers.{txt,json}.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/spillway-dev/spillway/e2e/bench/benchcmd"
	"github.com/spillway-dev/spillway/e2e/bench/peerbench"
)

const name = "spillway-peerbench"

func main() { benchcmd.Main(name, run) }

func run(ctx context.Context, root string) error {
	// The readiness watch's informers log through controller-runtime, which
	// otherwise prints a stack trace to say it has no logger.
	ctrllog.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	cfg, err := peerbench.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	report := peerbench.Report{StartedAt: time.Now().UTC(), CPUs: runtime.NumCPU(), LoadAverage: loadAverage(),
		StandIns: peerbench.StandIns, Counts: cfg.Counts}
	fmt.Printf("bench: peerings %v on one consumer, %d CPUs, load average %s at start\nbench: %s.\n",
		cfg.Counts, report.CPUs, report.LoadAverage, peerbench.StandIns)
	b, err := peerbench.Setup(ctx, root, os.Stderr)
	defer benchcmd.StopLab(name, b)
	if err != nil {
		return err
	}
	out := results{dir: benchcmd.ResultsDir(root), report: &report}
	if report.Baseline, err = b.Settle(ctx); err != nil {
		return err
	}
	out.baseline = report.Baseline
	for _, n := range cfg.Counts {
		s, err := b.Step(ctx, n)
		out.steps = append(out.steps, s)
		// Written after every step, so a run interrupted later keeps what it measured.
		if werr := out.write(); werr != nil {
			return werr
		}
		if err != nil {
			return err
		}
	}
	down, err := b.Teardown(ctx)
	if err != nil {
		return err
	}
	out.down = &down
	return out.write()
}

// loadAverage is the 1, 5 and 15 minute load average from /proc/loadavg.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	f := strings.Fields(string(data))
	return strings.Join(f[:min(3, len(f))], " ")
}

type results struct {
	dir      string
	report   *peerbench.Report
	baseline peerbench.State
	steps    []peerbench.Step
	down     *peerbench.Teardown
}

// write prints the tables and writes peers.txt and peers.json.
func (r results) write() error {
	r.report.Steps = r.report.Steps[:0]
	for _, s := range r.steps {
		r.report.Steps = append(r.report.Steps, peerbench.Reported(s))
	}
	r.report.Teardown, r.report.Slopes = nil, nil
	if r.down != nil {
		r.report.Teardown = peerbench.ReportedTeardown(*r.down)
	}
	if sl, err := peerbench.FitSteps(r.steps); err == nil {
		r.report.Slopes = &sl
	}
	var table strings.Builder
	fmt.Fprintf(&table, "peerings on one consumer (rome); %d CPUs, load average %s at start\n%s.\n\n", r.report.CPUs, r.report.LoadAverage, peerbench.StandIns)
	if err := peerbench.WriteTable(&table, r.baseline, r.steps, r.down); err != nil {
		return err
	}
	table.WriteString("\n")
	if err := peerbench.WriteCPUTable(&table, r.baseline, r.steps, r.down); err != nil {
		return err
	}
	table.WriteString("\n")
	if err := peerbench.WriteSlopes(&table, r.steps); err != nil {
		return err
	}
	fmt.Print("\n" + table.String() + "\n")
	data, err := json.MarshalIndent(r.report, "", "  ")
	if err != nil {
		return err
	}
	return benchcmd.WriteResults(r.dir, map[string][]byte{"peers.txt": []byte(table.String()), "peers.json": data})
}
