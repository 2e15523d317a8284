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

package framework

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// GoroutineStacks fetches c's manager's goroutines grouped by stack
// (/debug/pprof/goroutine?debug=1, from a manager started with PprofArg) and
// counts them per stack.
func GoroutineStacks(ctx context.Context, c *lab.Cluster) (map[string]int, error) {
	data, err := pprofGet(ctx, c, "goroutine?debug=1", "goroutines")
	if err != nil {
		return nil, err
	}
	return ParseGoroutineStacks(bytes.NewReader(data))
}

// ParseGoroutineStacks reads the debug=1 goroutine profile: blocks of
// "N @ pc pc …" followed by "#\tpc\tfunction+off\tfile:line" frames. The key
// of a stack is its frames without program counters, one "function file:line"
// per line, so two profiles of the same binary compare.
func ParseGoroutineStacks(r io.Reader) (map[string]int, error) {
	out := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	count, frames := -1, []string(nil)
	flush := func() {
		if count >= 0 {
			out[strings.Join(frames, "\n")] += count
		}
		count, frames = -1, nil
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "#"):
			if count < 0 {
				continue
			}
			fields := strings.Fields(strings.TrimPrefix(line, "#"))
			if len(fields) >= 3 {
				fn := fields[1]
				if i := strings.LastIndex(fn, "+0x"); i > 0 {
					fn = fn[:i]
				}
				frames = append(frames, fn+" "+fields[2])
			}
		case strings.Contains(line, " @ "):
			flush()
			n, err := strconv.Atoi(strings.TrimSpace(line[:strings.Index(line, " @ ")]))
			if err != nil {
				return nil, fmt.Errorf("goroutine profile: %q: %w", line, err)
			}
			count = n
		case strings.TrimSpace(line) == "":
			flush()
		}
	}
	flush()
	return out, sc.Err()
}

// StackGrowth is one stack that holds more goroutines after than before.
type StackGrowth struct {
	Before, After int
	Stack         string
}

// GoroutineGrowth lists the stacks whose count grew from before to after,
// most grown first, at most limit of them.
func GoroutineGrowth(before, after map[string]int, limit int) []StackGrowth {
	var out []StackGrowth
	for stack, n := range after {
		if n > before[stack] {
			out = append(out, StackGrowth{Before: before[stack], After: n, Stack: stack})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		di, dj := out[i].After-out[i].Before, out[j].After-out[j].Before
		if di != dj {
			return di > dj
		}
		return out[i].Stack < out[j].Stack
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// FormatGoroutineGrowth prints growth for a test's log: the counts, then the
// stack indented.
func FormatGoroutineGrowth(growth []StackGrowth) string {
	var b strings.Builder
	for _, g := range growth {
		fmt.Fprintf(&b, "+%d goroutines (%d -> %d):\n", g.After-g.Before, g.Before, g.After)
		for _, frame := range strings.Split(g.Stack, "\n") {
			b.WriteString("    " + frame + "\n")
		}
	}
	return b.String()
}
