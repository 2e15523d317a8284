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

package lab

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// StartForSuite starts the lab an e2e suite runs on, in <repo>/.lab-e2e/<suite>
// and on its own port block, so suites never touch a developer's `make lab-up`
// lab. A lab left behind by a crashed run of the same suite is torn down first.
func StartForSuite(ctx context.Context, suite string, portBase int, specs []ClusterSpec, overlapping bool) (*Lab, error) {
	root, err := RepoRoot()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, ".lab-e2e", suite)
	if err := DownDir(dir); err != nil {
		return nil, fmt.Errorf("clearing the previous %s lab: %w", suite, err)
	}
	offset, err := portOffset()
	if err != nil {
		return nil, err
	}
	opts := Options{Dir: dir, PortBase: portBase + offset, OverlappingCIDRs: overlapping, Out: os.Stderr}
	l, err := Up(ctx, opts, specs)
	if err != nil {
		return nil, err
	}
	// Release the directory lock: the suite's own calls (Stop, Start) need no
	// lock, and a parallel `spillway-lab status --dir` should not block.
	l.Close()
	return l, nil
}

// EnvPortOffset names the variable that shifts every suite's port block, so
// two checkouts can run the same suite at once on one machine without their
// labs' loopback ports meeting (e.g. 3000 moves the faults suite to 21900).
const EnvPortOffset = "SPILLWAY_E2E_PORT_OFFSET"

func portOffset() (int, error) {
	v := os.Getenv(EnvPortOffset)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 20000 {
		return 0, fmt.Errorf("%s=%q: want a whole number of ports between 0 and 20000", EnvPortOffset, v)
	}
	return n, nil
}

// MustSpecs parses cluster specs and panics on error; for suites' literals.
func MustSpecs(list string) []ClusterSpec {
	specs, err := ParseClusterSpecs(list)
	if err != nil {
		panic(err)
	}
	return specs
}

// EnvKeep names the variable that, when set to 1, leaves a suite's lab
// running after the suite so its state and logs can be inspected; the next
// run of the suite clears it.
const EnvKeep = "SPILLWAY_E2E_KEEP"

// TearDownSuite stops a suite's lab unless SPILLWAY_E2E_KEEP=1.
func TearDownSuite(l *Lab) error {
	if l == nil {
		return nil
	}
	if os.Getenv(EnvKeep) == "1" {
		fmt.Fprintf(os.Stderr, "lab: %s=1, leaving the lab in %s running; stop it with: go run ./e2e/lab/cmd/spillway-lab down --dir %s\n", EnvKeep, l.Dir(), l.Dir())
		return nil
	}
	return l.Down()
}
