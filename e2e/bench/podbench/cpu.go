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
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// clockTick is the unit of utime and stime in /proc/<pid>/stat: USER_HZ,
// 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// CPU is the processor time used by each lab process, keyed "<cluster>/<process>".
// On a shared machine latency depends on the load; CPU time per batch says
// what each path costs whatever the load.
type CPU map[string]time.Duration

// ParseStatCPU returns utime + stime from the text of /proc/<pid>/stat.
func ParseStatCPU(stat string) (time.Duration, error) {
	// The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc stat %q: no ')' closing the command name", stat)
	}
	fields := strings.Fields(stat[i+1:])
	// After the name: state(3) ... utime(14) stime(15).
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc stat: %d fields after the command name, want at least 13", len(fields))
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc stat: utime/stime %q: %w", f, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// ReadCPU snapshots the CPU time of every process of the clusters.
func ReadCPU(clusters ...*lab.Cluster) (CPU, error) {
	out := CPU{}
	for _, c := range clusters {
		for _, name := range c.ProcessNames() {
			pid, err := c.PID(name)
			if err != nil {
				return nil, err
			}
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil {
				return nil, err
			}
			if out[c.Name+"/"+name], err = ParseStatCPU(string(data)); err != nil {
				return nil, fmt.Errorf("cluster %s, %s (pid %d): %w", c.Name, name, pid, err)
			}
		}
	}
	return out, nil
}

// Since returns what each process used between before and c; a process
// restarted in between counts from zero.
func (c CPU) Since(before CPU) CPU {
	out := CPU{}
	for k, v := range c {
		if b, ok := before[k]; ok && b <= v {
			v -= b
		}
		out[k] = v
	}
	return out
}

// Total is the sum over all processes.
func (c CPU) Total() time.Duration {
	var t time.Duration
	for _, v := range c {
		t += v
	}
	return t
}
