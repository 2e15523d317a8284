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

// Command spillway-storagebench measures claims from creation to Bound
// through the virtual storage class liqo (pods on the virtual node, so the
// data is on the provider) against the same claims made directly on the
// provider, in one run on one lab, and reports p50 / p99 and their ratios.
// Run by `make bench`, never in CI:
//
//	go run ./e2e/bench/cmd/spillway-storagebench
//
// SPILLWAY_BENCH_CLAIMS sets the number of claims per side (default 100).
// Results go to bench/results/storage.txt and storage.json.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/benchcmd"
	"github.com/spillway-dev/spillway/e2e/bench/podbench"
	"github.com/spillway-dev/spillway/e2e/bench/storagebench"
)

const name = "spillway-storagebench"

func main() { benchcmd.Main(name, run) }

func run(ctx context.Context, root string) error {
	cfg := storagebench.Config{Claims: 100, QPS: 20, Timeout: 3 * time.Minute}
	if err := benchcmd.EnvPositiveInt("SPILLWAY_BENCH_CLAIMS", "claims per side", &cfg.Claims); err != nil {
		return err
	}
	b, err := storagebench.Setup(ctx, root, cfg, os.Stderr)
	defer benchcmd.StopLab(name, b)
	if err != nil {
		return err
	}
	res, err := b.Run(ctx)
	if err != nil {
		return err
	}
	var table strings.Builder
	writeTable(&table, res)
	fmt.Print(table.String())
	js, err := json.MarshalIndent(report(res, cfg), "", "  ")
	if err != nil {
		return err
	}
	return benchcmd.WriteResults(benchcmd.ResultsDir(root), map[string][]byte{"storage.txt": []byte(table.String()), "storage.json": js})
}

// rows are the table's lines: what was timed, and its sample.
func rows(r storagebench.Result) []struct {
	name   string
	sample podbench.Sample
} {
	return []struct {
		name   string
		sample podbench.Sample
	}{
		{"vanilla: claim on milan, milan's class", r.Vanilla},
		{"virtual: claim of class liqo on rome", r.Virtual},
		{"virtual: its twin on milan", r.Twin},
	}
}

func writeTable(w io.Writer, r storagebench.Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "create → Bound, %d claims per side\tp50\tp99\tp50 ×\tp99 ×\tunfinished\twall\n", r.Claims)
	v := podbench.Summarize(r.Vanilla)
	for _, row := range rows(r) {
		s := podbench.Summarize(row.sample)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.2f\t%.2f\t%d\t%s\n", row.name, ms(s.P50), ms(s.P99),
			podbench.Ratio(s.P50, v.P50), podbench.Ratio(s.P99, v.P99), s.Unfinished, s.Wall.Round(time.Millisecond))
	}
	_ = tw.Flush()
}

func ms(d time.Duration) string {
	if d == podbench.Unknown {
		return "—"
	}
	return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
}

func report(r storagebench.Result, cfg storagebench.Config) map[string]any {
	out := map[string]any{"claims": r.Claims, "qps": cfg.QPS}
	for key, s := range map[string]podbench.Sample{"vanilla": r.Vanilla, "virtual": r.Virtual, "twin": r.Twin} {
		sum := podbench.Summarize(s)
		f := func(d time.Duration) any {
			if d == podbench.Unknown {
				return nil
			}
			return float64(d) / float64(time.Millisecond)
		}
		out[key] = map[string]any{"p50Ms": f(sum.P50), "p99Ms": f(sum.P99), "unfinished": sum.Unfinished, "wallMs": f(sum.Wall)}
	}
	return out
}
