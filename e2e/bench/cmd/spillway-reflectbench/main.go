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

// Command spillway-reflectbench measures reflection latency on a lab (rome
// offloading a namespace to milan): N ConfigMaps, then N EndpointSlices, are
// updated once, and each update's time until a watcher of rome sees it
// (vanilla) and until milan's copy shows it (reflected) is reported, with
// p50 / p99 and ratios. Run by `make bench`, never in CI:
//
//	go run ./e2e/bench/cmd/spillway-reflectbench
//
// SPILLWAY_BENCH_OBJECTS sets N (default 1000), SPILLWAY_BENCH_UPDATE_QPS the
// update rate (default 50/s). Results go to bench/results/reflection.*.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/benchcmd"
	"github.com/spillway-dev/spillway/e2e/bench/reflectbench"
)

const name = "spillway-reflectbench"

func main() { benchcmd.Main(name, run) }

func config() (reflectbench.Config, error) {
	cfg := reflectbench.Config{Objects: 1000, QPS: 50, Timeout: 2 * time.Minute}
	if err := benchcmd.EnvPositiveInt("SPILLWAY_BENCH_OBJECTS", "objects per kind", &cfg.Objects); err != nil {
		return cfg, err
	}
	return cfg, benchcmd.EnvPositiveFloat("SPILLWAY_BENCH_UPDATE_QPS", "updates per second", &cfg.QPS)
}

func run(ctx context.Context, root string) error {
	cfg, err := config()
	if err != nil {
		return err
	}
	b, err := reflectbench.Setup(ctx, root, cfg, os.Stderr)
	defer benchcmd.StopLab(name, b)
	if err != nil {
		return err
	}
	var batches []reflectbench.Batch
	for _, k := range reflectbench.Kinds {
		batch, err := b.Run(ctx, k)
		if err != nil {
			return err
		}
		batches = append(batches, batch)
	}
	var table strings.Builder
	reflectbench.Table(&table, batches)
	reflectbench.SlowWindows(&table, batches)
	fmt.Print(table.String())
	var reported []reflectbench.Reported
	for _, batch := range batches {
		reported = append(reported, reflectbench.Report(batch))
	}
	js, err := json.MarshalIndent(map[string]any{"objects": cfg.Objects, "updateQPS": cfg.QPS, "batches": reported}, "", "  ")
	if err != nil {
		return err
	}
	return benchcmd.WriteResults(benchcmd.ResultsDir(root), map[string][]byte{
		"reflection.txt": []byte(table.String()), "reflection.json": js, "reflection.svg": []byte(reflectbench.Plot(batches))})
}
