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

// Package benchcmd is what the `make bench` commands share around their
// measurements: the signal handling that stops a run's lab on Ctrl-C, the
// repository root the results go under, and writing the result files. Each
// command keeps its own configuration and tables.
package benchcmd

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// Lab is a bench's running lab: stopped when the command ends, however it ends.
type Lab interface{ Down() error }

// Main runs a bench command and exits 1 with its name and the error if run
// fails. run's context is cancelled on SIGINT or SIGTERM, so an interrupted
// run still stops its lab's processes; root is the repository's root.
func Main(name string, run func(ctx context.Context, root string) error) {
	root, err := lab.RepoRoot()
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err = run(ctx, root)
		stop()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		os.Exit(1)
	}
}

// StopLab stops l, reporting rather than returning a failure: it runs
// deferred, after the measurement's own error (if any) is decided. Every
// bench's Down accepts the partial bench a failed setup returns.
func StopLab(name string, l Lab) {
	if err := l.Down(); err != nil {
		fmt.Fprintln(os.Stderr, name+": stopping the lab:", err)
	}
}

// ResultsDir is where every bench writes: bench/results under the root.
func ResultsDir(root string) string { return filepath.Join(root, "bench", "results") }

// WriteResults writes each file into dir, creating dir, and prints the
// names it wrote, so a run's last line says where its figures are.
func WriteResults(dir string, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("bench: wrote %s in %s\n", strings.Join(names, ", "), dir)
	return nil
}

// EnvPositiveInt sets *dst from the environment variable key when it is set,
// and names the variable and what it counts when its value is not a
// positive whole number.
func EnvPositiveInt(key, counts string, dst *int) error {
	v := os.Getenv(key)
	if v == "" {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("%s=%q: want a positive number of %s", key, v, counts)
	}
	*dst = n
	return nil
}

// EnvPositiveFloat is EnvPositiveInt for a rate.
func EnvPositiveFloat(key, counts string, dst *float64) error {
	v := os.Getenv(key)
	if v == "" {
		return nil
	}
	q, err := strconv.ParseFloat(v, 64)
	if err != nil || q <= 0 {
		return fmt.Errorf("%s=%q: want a positive number of %s", key, v, counts)
	}
	*dst = q
	return nil
}
