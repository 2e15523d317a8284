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
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// Environment variables that configure the benchmark.
const (
	EnvPods    = "SPILLWAY_BENCH_PODS"
	EnvQPS     = "SPILLWAY_BENCH_QPS"
	EnvLabQPS  = "SPILLWAY_BENCH_LAB_QPS"
	EnvWorkers = "SPILLWAY_BENCH_WORKERS"
	EnvTwoHops = "SPILLWAY_BENCH_TWO_HOPS"
	EnvLocal   = "SPILLWAY_BENCH_LOCAL"
	EnvRest    = "SPILLWAY_BENCH_REST"
)

// Config is one benchmark run's settings.
type Config struct {
	// Counts are the batch sizes, each run vanilla then offloaded.
	Counts []int
	// CreatorQPS is the creation rate, identical on both sides.
	CreatorQPS float64
	// CreatorWorkers send creates in parallel.
	CreatorWorkers int
	// LabQPS is the client rate limit of both clusters' controller-manager and
	// scheduler.
	LabQPS lab.ClientQPS
	// TwoHops adds a broker (genoa) to the lab and a third path, rome →
	// genoa → milan, measured after the other two in every batch.
	TwoHops bool
	// Local adds, in every batch after vanilla, the reference for target 3:
	// the same pods created in rome and run on its own nodes, to read what
	// rome's manager holds for pods that are not offloaded. The peering's
	// share of its memory is the offloaded batch's less this.
	Local bool
	// Rest is how long each path's pods are left Running, untouched, while
	// the lab's CPU is measured (RestCPU), before they are deleted; 0 skips it.
	Rest time.Duration
}

// DefaultConfig is 100 and 1 000 pods created at 50 per second, on a lab whose
// components run at the lab's default QPS, through all three paths: issue 16
// asks for two hops against one and vanilla in the same run.
var DefaultConfig = Config{Counts: []int{100, 1000}, CreatorQPS: 50, CreatorWorkers: 8, LabQPS: lab.DefaultClientQPS, TwoHops: true, Local: true, Rest: 30 * time.Second}

// ConfigFromEnv overrides DefaultConfig with the environment, read by getenv.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig
	c.Counts = slices.Clone(c.Counts)
	if v := getenv(EnvPods); v != "" {
		counts, err := parseCounts(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w; example: %s=\"100 1000 10000\"", EnvPods, v, err, EnvPods)
		}
		c.Counts = counts
	}
	if v := getenv(EnvQPS); v != "" {
		qps, err := strconv.ParseFloat(v, 64)
		if err != nil || qps <= 0 {
			return c, fmt.Errorf("%s=%q: want a positive number of pods created per second", EnvQPS, v)
		}
		c.CreatorQPS = qps
	}
	if v := getenv(EnvLabQPS); v != "" {
		qps, err := strconv.Atoi(v)
		if err != nil || qps <= 0 {
			return c, fmt.Errorf("%s=%q: want a positive integer, the controller-manager's and scheduler's client QPS", EnvLabQPS, v)
		}
		c.LabQPS = lab.ClientQPS{QPS: qps, Burst: 2 * qps}
	}
	if v := getenv(EnvWorkers); v != "" {
		w, err := strconv.Atoi(v)
		if err != nil || w <= 0 {
			return c, fmt.Errorf("%s=%q: want a positive integer, the creator's parallel requests", EnvWorkers, v)
		}
		c.CreatorWorkers = w
	}
	if v := getenv(EnvTwoHops); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: want 1 (measure two hops through the broker genoa, the default) or 0 (leave genoa out of the lab)", EnvTwoHops, v)
		}
		c.TwoHops = on
	}
	if v := getenv(EnvLocal); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: want 1 (measure rome's manager with pods of its own, the reference for the peering's memory, the default) or 0 (leave it out)", EnvLocal, v)
		}
		c.Local = on
	}
	if v := getenv(EnvRest); v != "" {
		d, err := time.ParseDuration(v) // "0" parses, without a unit
		if err != nil || d < 0 {
			return c, fmt.Errorf("%s=%q: want how long each path's pods sit Running while the lab's CPU at rest is measured, e.g. 30s, or 0 to skip it", EnvRest, v)
		}
		c.Rest = d
	}
	return c, nil
}

func parseCounts(v string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive pod count", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no pod count given")
	}
	return out, nil
}

// providerNodes is how many kwok nodes the provider gets.
const providerNodes = 4

// ProviderSpec sizes the provider for the largest batch. Its offer to the
// consumer is 90 % of its free pods, and offloaded pods use them up while they
// run, so the provider holds 2.5 times the largest batch: the virtual node never
// runs out of room before the last pod is scheduled.
// With two hops the provider offers the broker the same 90 %, and neither
// offer counts its own consumer's pods, so the room is the same on both paths.
func ProviderSpec(name string, counts []int) string {
	podsPerNode := max((slices.Max(counts)*5/2+providerNodes-1)/providerNodes, 110)
	return fmt.Sprintf("%s:nodes=%d,cpu=64,memory=256Gi,pods=%d", name, providerNodes, podsPerNode)
}

// BrokerSpec is the broker's lab spec: one kwok node, which no benchmark pod
// uses (its twin namespaces offload every pod onward to its virtual node).
const BrokerSpec = "genoa:nodes=1"

// ConsumerSpec is rome's lab spec: the lab's default nodes, with room for
// the largest batch when the local reference runs its pods there. Only the
// pod capacity changes, not the nodes kwok keeps alive, so the lab's idle
// CPU, counted on every path, stays what it was.
func ConsumerSpec(cfg Config) string {
	if !cfg.Local {
		return "rome"
	}
	podsPerNode := max((slices.Max(cfg.Counts)*11/10+lab.DefaultNodes-1)/lab.DefaultNodes, 110)
	return fmt.Sprintf("rome:pods=%d", podsPerNode)
}

// LabSpec lists the lab's clusters: rome and milan, then genoa when two hops
// are measured, last so that rome's and milan's ports stay where they were.
func LabSpec(cfg Config) string {
	spec := ConsumerSpec(cfg) + " " + ProviderSpec("milan", cfg.Counts)
	if cfg.TwoHops {
		spec += " " + BrokerSpec
	}
	return spec
}
