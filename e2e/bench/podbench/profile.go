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
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// profiler is a CPU profile being taken from a pprof endpoint.
type profiler struct {
	fetch fetcher
	// name is whose profile it is, e.g. rome-manager.
	name string
	done chan struct{}
	data []byte
	err  error
}

// fetcher reads a pprof path (with its query) from one process's endpoint.
type fetcher func(ctx context.Context, path string) ([]byte, error)

// managerPprof reads a manager's --pprof-bind-address endpoint.
func managerPprof(addr string) fetcher {
	return func(ctx context.Context, path string) ([]byte, error) { return get(ctx, "http://"+addr+path) }
}

// apiServerPprof reads an API server's /debug/pprof as the lab's admin
// (the lab starts it with --profiling only under EnvAPIServerProfiling).
func apiServerPprof(c *lab.Cluster) (fetcher, error) {
	cs, err := c.Clientset()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, path string) ([]byte, error) {
		return cs.CoreV1().RESTClient().Get().RequestURI(path).DoRaw(ctx)
	}, nil
}

// startCPUProfile asks name's pprof endpoint for a CPU profile of the next d.
func startCPUProfile(ctx context.Context, fetch fetcher, name string, d time.Duration) *profiler {
	p := &profiler{fetch: fetch, name: name, done: make(chan struct{})}
	seconds := max(int(d.Round(time.Second)/time.Second), 1)
	go func() {
		defer close(p.done)
		p.data, p.err = fetch(ctx, fmt.Sprintf("/debug/pprof/profile?seconds=%d", seconds))
	}()
	return p
}

// saveHeapProfile writes the heap profile fetch serves, after a collection,
// as <dir>/<name>-heap.pprof.
func saveHeapProfile(ctx context.Context, fetch fetcher, dir, name string, log io.Writer) error {
	heap, err := fetch(ctx, "/debug/pprof/heap?gc=1")
	if err != nil {
		return fmt.Errorf("heap profile of %s: %w", name, err)
	}
	return writeProfile(dir, name+"-heap", heap, log)
}

// writeProfile writes a profile as <dir>/<name>.pprof and says where.
func writeProfile(dir, name string, data []byte, log io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, name+".pprof")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(log, "bench: wrote %s (go tool pprof -top %s)\n", path, path)
	return nil
}

// finish takes a heap profile, waits for the CPU profile, and writes both as
// <dir>/<name>-{cpu,heap}.pprof for `go tool pprof`.
func (p *profiler) finish(ctx context.Context, dir, name string, log io.Writer) error {
	if p == nil {
		return nil
	}
	heap, err := p.fetch(ctx, "/debug/pprof/heap")
	if err != nil {
		return fmt.Errorf("heap profile of %s: %w", p.name, err)
	}
	select {
	case <-p.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if p.err != nil {
		return fmt.Errorf("CPU profile of %s: %w", p.name, p.err)
	}
	for kind, data := range map[string][]byte{"cpu": p.data, "heap": heap} {
		if err := writeProfile(dir, name+"-"+kind, data, log); err != nil {
			return err
		}
	}
	return nil
}

// liveHeap has the process collect its garbage, then returns the bytes its
// heap still holds (runtime.MemStats.HeapAlloc, which the text heap profile
// prints after the collection gc=1 asks for). Unlike the heap profile's
// sampled totals, which vary by several MiB between runs of the same code, it
// is exact; unlike RSS, it leaves out the garbage the collector has not yet
// reached and the memory the runtime keeps for later.
func liveHeap(ctx context.Context, fetch fetcher) (uint64, error) {
	text, err := fetch(ctx, "/debug/pprof/heap?debug=1&gc=1")
	if err != nil {
		return 0, err
	}
	return heapAlloc(text)
}

// heapAlloc reads the "# HeapAlloc = N" line of a text heap profile.
func heapAlloc(text []byte) (uint64, error) {
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# HeapAlloc = "); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("the heap profile has no HeapAlloc line: is it the text form (debug=1)?")
}

func get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("GET %s: %s: %.200s", url, resp.Status, data)
	}
	return data, err
}
