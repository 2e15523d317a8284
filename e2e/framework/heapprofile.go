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
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// pprofPortIndex is the extra port of a manager started with PprofArg
// (StartManager itself uses 0, 1, 5 and 9).
const pprofPortIndex = 8

// PprofAddress is where a manager started with PprofArg serves Go's
// profiles: loopback and c's pprof port.
func PprofAddress(c *lab.Cluster) string { return loopback(c, pprofPortIndex) }

// PprofArg is the manager flag that serves Go's profiles on c's pprof port,
// for StartManager's extra arguments.
func PprofArg(c *lab.Cluster) string {
	return "--pprof-bind-address=" + PprofAddress(c)
}

// HeapProfile takes a heap profile of c's manager (started with PprofArg)
// after a forced garbage collection (?gc=1), so its in-use figures, and the
// footprint read right after it, count live objects and not garbage the
// collector has not reached yet.
func HeapProfile(ctx context.Context, c *lab.Cluster) ([]byte, error) {
	return pprofGet(ctx, c, "heap?gc=1", "heap profile")
}

// pprofGet reads one of Go's profiles (path under /debug/pprof/) from c's
// manager started with PprofArg; what names the profile in errors.
func pprofGet(ctx context.Context, c *lab.Cluster, path, what string) ([]byte, error) {
	url := "http://" + PprofAddress(c) + "/debug/pprof/" + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s of %s's manager: %w", what, c.Name, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s of %s's manager: GET %s: %s", what, c.Name, url, resp.Status)
	}
	return data, err
}

// HeapGrowth is `go tool pprof -top` of what the heap holds in after and did
// not in before (both profiles' paths): the places that kept memory between
// the two. Reading the profiles needs only the go command; they carry their
// own symbols.
func HeapGrowth(ctx context.Context, before, after string, lines int) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", "-sample_index=inuse_space",
		"-nodecount="+strconv.Itoa(lines), "-base", before, after)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("go tool pprof -base %s %s: %w", before, after, err)
	}
	return out.String(), nil
}

// WriteProfile writes data to path, making its directory.
func WriteProfile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
