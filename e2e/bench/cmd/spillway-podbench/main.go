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

// Command spillway-podbench offloads N pods through one virtual node (rome →
// milan), creates the same N pods directly in milan, and offloads them again
// through two hops (rome → the broker genoa → milan), in one run on one lab,
// and reports create → Running percentiles, wall time, the ratios, the
// virtual kubelet's peak RSS, the CPU of every lab process, and the API
// requests per pod on every API server by verb and resource, judged against
// issue 17's write targets; it keeps CPU and heap profiles of rome's manager in
// bench/results/pprof/. Run by `make bench`, never in CI:
//
//	go run ./e2e/bench/cmd/spillway-podbench
//
// SPILLWAY_BENCH_PODS="100 1000 10000" sets the batch sizes, SPILLWAY_BENCH_QPS
// the creation rate (both sides), SPILLWAY_BENCH_LAB_QPS the controller-manager's
// and scheduler's client QPS (every cluster), SPILLWAY_BENCH_TWO_HOPS=0 leaves
// the broker and its path out, SPILLWAY_BENCH_REST how long each path's pods
// sit Running while the lab's CPU at rest is measured (default 30s, 0 skips
// it). Results go to bench/results/pods.*.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/benchcmd"
	"github.com/spillway-dev/spillway/e2e/bench/podbench"
	"github.com/spillway-dev/spillway/e2e/framework"
)

const name = "spillway-podbench"

func main() { benchcmd.Main(name, run) }

func run(ctx context.Context, root string) error {
	cfg, err := podbench.ConfigFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	report := podbench.Report{StartedAt: time.Now().UTC(), CreatorQPS: cfg.CreatorQPS, Workers: cfg.CreatorWorkers,
		LabQPS: cfg.LabQPS.QPS, LabBurst: cfg.LabQPS.Burst, Provider: podbench.ProviderSpec("milan", cfg.Counts), Lab: podbench.LabSpec(cfg),
		ManagerMemoryLimit: os.Getenv(framework.EnvManagerMemoryLimit)}
	fmt.Printf("bench: pods %v, created at %g/s on every path; controller-manager and scheduler at QPS %d (burst %d) on every cluster; lab %s\n",
		cfg.Counts, cfg.CreatorQPS, cfg.LabQPS.QPS, cfg.LabQPS.Burst, report.Lab)
	if report.ManagerMemoryLimit != "" {
		fmt.Printf("bench: the managers run with GOMEMLIMIT=%s\n", report.ManagerMemoryLimit)
	}
	b, err := podbench.Setup(ctx, root, cfg, os.Stderr)
	defer benchcmd.StopLab(name, b)
	if err != nil {
		return err
	}
	var results []podbench.Result
	for _, n := range cfg.Counts {
		r, err := b.RunBatch(ctx, n)
		if err != nil {
			return fmt.Errorf("batch of %d pods: %w", n, err)
		}
		results = append(results, r)
		report.Runs = append(report.Runs, podbench.Reported(r))
		// Written after every batch, so a long run interrupted later keeps what it measured.
		if err := write(benchcmd.ResultsDir(root), report, results); err != nil {
			return err
		}
	}
	return nil
}

// write prints the table and writes pods.txt, pods.json and pods.svg.
func write(dir string, report podbench.Report, results []podbench.Result) error {
	var table strings.Builder
	if err := podbench.WriteTable(&table, results); err != nil {
		return err
	}
	table.WriteString("\n")
	if report.ManagerMemoryLimit != "" {
		fmt.Fprintf(&table, "the managers ran with GOMEMLIMIT=%s (%s)\n", report.ManagerMemoryLimit, framework.EnvManagerMemoryLimit)
	}
	if err := podbench.WriteMemoryShare(&table, results); err != nil {
		return err
	}
	if err := podbench.WriteSegmentTable(&table, results); err != nil {
		return err
	}
	table.WriteString("\n")
	podbench.WriteSlowWindows(&table, results)
	table.WriteString("\n")
	if err := podbench.WriteCPUTable(&table, results); err != nil {
		return err
	}
	if err := podbench.WriteFloorTable(&table, results); err != nil {
		return err
	}
	if len(results) > 0 && len(results[0].Rest) > 0 {
		table.WriteString("\n")
		if err := podbench.WriteRestTable(&table, results); err != nil {
			return err
		}
	}
	for _, r := range results {
		table.WriteString("\n")
		if err := podbench.WriteTrafficTable(&table, r); err != nil {
			return err
		}
	}
	fmt.Print("\n" + table.String() + "\n")
	data, err := json.MarshalIndent(report, "", "  ")
	if err != nil {
		return err
	}
	return benchcmd.WriteResults(dir, map[string][]byte{"pods.txt": []byte(table.String()), "pods.json": data, "pods.svg": []byte(podbench.PlotCDF(results))})
}
