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

// Package peerbench measures what each peering costs the consumer: N
// providers peered with one consumer manager, added in steps, each timed from
// its ForeignCluster's creation (what Flux applies for a commit) to its
// virtual node and ForeignCluster Ready, and the manager's goroutines, memory
// and CPU at each step, with the per-peering slope. The providers are
// framework.StandInProviders on one API server. It is run by `make bench`
// (hack/bench.sh), never in CI.
package peerbench

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// EnvPeers sets the steps: the number of peerings after each.
const EnvPeers = "SPILLWAY_BENCH_PEERS"

// Config is one run's settings.
type Config struct {
	// Counts are the peerings after each step, increasing: each step adds
	// the difference to the previous one.
	Counts []int
}

// DefaultConfig reaches issue 17's 100 peerings directly: about two minutes
// on the 2-core lab machine, lab start included.
var DefaultConfig = Config{Counts: []int{1, 10, 25, 50, 100}}

// ConfigFromEnv overrides DefaultConfig with the environment, read by getenv.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := DefaultConfig
	c.Counts = slices.Clone(c.Counts)
	if v := getenv(EnvPeers); v != "" {
		counts, err := parseCounts(v)
		if err != nil {
			return c, fmt.Errorf("%s=%q: %w; example: %s=\"1 10 25 50 100\"", EnvPeers, v, err, EnvPeers)
		}
		c.Counts = counts
	}
	return c, nil
}

// parseCounts reads increasing positive counts separated by spaces or commas.
func parseCounts(v string) ([]int, error) {
	var out []int
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }) {
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q is not a positive number of peerings", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("%d after %d: each step adds peerings, so the counts must increase", n, out[len(out)-1])
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no number of peerings given")
	}
	return out, nil
}
