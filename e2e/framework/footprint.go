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
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// ScrapeManager returns every sample of c's manager's metrics, by series
// ("name" or "name{labels}"), from the metrics port StartManager gives it.
func ScrapeManager(ctx context.Context, c *lab.Cluster) (map[string]float64, error) {
	port, err := c.ExtraPort(0)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics of %s's manager: %s", c.Name, resp.Status)
	}
	return ParseSamples(resp.Body)
}

// ParseSamples reads Prometheus' text format: "series value" per line.
func ParseSamples(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %q: %w", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// SumSeries is one series when it names labels, else the sum over every
// series of that name; a series not exposed reads as 0, as a gauge that was
// never set is not exposed.
func SumSeries(values map[string]float64, series string) float64 {
	if strings.Contains(series, "{") {
		return values[series]
	}
	sum := 0.0
	for s, v := range values {
		if s == series || strings.HasPrefix(s, series+"{") {
			sum += v
		}
	}
	return sum
}

// Footprint is what a manager process holds: goroutines (go_goroutines),
// memory (VmRSS, and the Go heap's share of it, to tell a leak from pages the
// runtime keeps) and the peering sessions and their workers it runs.
type Footprint struct {
	Goroutines  int `json:"goroutines"`
	RSSKB       int `json:"rssKB"`
	HeapInuseKB int `json:"heapInuseKB"`
	HeapIdleKB  int `json:"heapIdleKB"`
	ReleasedKB  int `json:"heapReleasedKB"`
	Sessions    int `json:"peeringSessions"`
	Workers     int `json:"peeringWorkers"`
}

func (f Footprint) String() string {
	return fmt.Sprintf("%d goroutines, VmRSS %d kB (Go heap in use %d kB, idle %d kB of which released %d kB), %d peering sessions with %d workers",
		f.Goroutines, f.RSSKB, f.HeapInuseKB, f.HeapIdleKB, f.ReleasedKB, f.Sessions, f.Workers)
}

// ReadFootprint reads the footprint of c's manager, process pid.
func ReadFootprint(ctx context.Context, c *lab.Cluster, pid int) (Footprint, error) {
	m, err := ReadMemory(pid)
	if err != nil {
		return Footprint{}, err
	}
	values, err := ScrapeManager(ctx, c)
	if err != nil {
		return Footprint{}, err
	}
	return Footprint{Goroutines: int(values["go_goroutines"]), RSSKB: int(m.Current / 1024),
		HeapInuseKB: int(values["go_memstats_heap_inuse_bytes"]) / 1024, HeapIdleKB: int(values["go_memstats_heap_idle_bytes"]) / 1024,
		ReleasedKB: int(values["go_memstats_heap_released_bytes"]) / 1024,
		Sessions:   int(SumSeries(values, "spillway_peering_sessions")), Workers: int(SumSeries(values, "spillway_peering_workers"))}, nil
}
