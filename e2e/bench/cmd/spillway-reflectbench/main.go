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
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/reflectbench"
	"github.com/spillway-dev/spillway/e2e/lab"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "spillway-reflectbench:", err)
		os.Exit(1)
	}
}

func config() (reflectbench.Config, error) {
	cfg := reflectbench.Config{Objects: 1000, QPS: 50, Timeout: 2 * time.Minute}
	if v := os.Getenv("SPILLWAY_BENCH_OBJECTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return cfg, fmt.Errorf("SPILLWAY_BENCH_OBJECTS=%q: want a positive number of objects per kind", v)
		}
		cfg.Objects = n
	}
	if v := os.Getenv("SPILLWAY_BENCH_UPDATE_QPS"); v != "" {
		q, err := strconv.ParseFloat(v, 64)
		if err != nil || q <= 0 {
			return cfg, fmt.Errorf("SPILLWAY_BENCH_UPDATE_QPS=%q: want a positive number of updates per second", v)
		}
		cfg.QPS = q
	}
	return cfg, nil
}

func run() error {
	cfg, err := config()
	if err != nil {
		return err
	}
	root, err := lab.RepoRoot()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	b, err := reflectbench.Setup(ctx, root, cfg, os.Stderr)
	defer func() {
		if err := b.Down(); err != nil {
			fmt.Fprintln(os.Stderr, "spillway-reflectbench: stopping the lab:", err)
		}
	}()
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
	fmt.Print(table.String())
	dir := filepath.Join(root, "bench", "results")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var reported []reflectbench.Reported
	for _, batch := range batches {
		reported = append(reported, reflectbench.Report(batch))
	}
	js, err := json.MarshalIndent(map[string]any{"objects": cfg.Objects, "updateQPS": cfg.QPS, "batches": reported}, "", "  ")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"reflection.txt": []byte(table.String()), "reflection.json": js, "reflection.svg": []byte(reflectbench.Plot(batches))} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("reflectbench: results in %s (reflection.txt, .json, .svg)\n", dir)
	return nil
}
