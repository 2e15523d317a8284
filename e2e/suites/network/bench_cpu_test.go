//go:build bench

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

package network_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"
)

// pprofAddr is where each gateway serves its profiles when the benchmark asks
// (SPILLWAY_BENCH_PPROF): loopback of its own namespace, so both use one port.
const pprofAddr = "127.0.0.1:6060"

// clockTicks is USER_HZ, the unit of /proc/stat and /proc/<pid>/stat; 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// machineCPU is the first line of /proc/stat, in seconds summed over all CPUs.
// steal is time the hypervisor gave to other guests: neither busy nor idle
// here.
type machineCPU struct{ user, system, softirq, idle, steal, total float64 }

func readMachineCPU() (machineCPU, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineCPU{}, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return machineCPU{}, fmt.Errorf("/proc/stat: unexpected first line %q", line)
	}
	v := make([]float64, 8) // user nice system idle iowait irq softirq steal
	var m machineCPU
	for i := range v {
		n, err := strconv.ParseFloat(f[i+1], 64)
		if err != nil {
			return machineCPU{}, fmt.Errorf("/proc/stat: %q: %w", line, err)
		}
		v[i] = n / clockTicks
		m.total += v[i]
	}
	m.user, m.system, m.softirq, m.idle, m.steal = v[0]+v[1], v[2], v[5]+v[6], v[3]+v[4], v[7]
	return m, nil
}

func (m machineCPU) since(b machineCPU) machineCPU {
	return machineCPU{m.user - b.user, m.system - b.system, m.softirq - b.softirq, m.idle - b.idle, m.steal - b.steal, m.total - b.total}
}

// processCPU is a process's user+system time in seconds, all threads.
func processCPU(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name is in parentheses and may hold spaces: fields after it.
	_, rest, ok := strings.Cut(string(b), ") ")
	f := strings.Fields(rest)
	if !ok || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return (utime + stime) / clockTicks, nil
}

// cpuSnapshot is the machine's CPU time and that of the processes of one
// transfer: gateway a, gateway b and this test process (both endpoints).
type cpuSnapshot struct {
	at      time.Time
	machine machineCPU
	procs   [3]float64
}

// cpuPids are the processes a cpuSnapshot reads, in its order.
func cpuPids(l *lab) [3]int {
	return [3]int{l.procs["a"].cmd.Process.Pid, l.procs["b"].cmd.Process.Pid, os.Getpid()}
}

func takeCPUSnapshot(pids [3]int) (cpuSnapshot, error) {
	s := cpuSnapshot{at: time.Now()}
	var errs [4]error
	s.machine, errs[0] = readMachineCPU()
	for i, pid := range pids {
		s.procs[i], errs[i+1] = processCPU(pid)
	}
	return s, errors.Join(errs[:]...)
}

// cpuUse says where the CPU went between two snapshots: whether the machine
// was saturated, how much of it each gateway and the endpoints took, and
// what the machine's busy time comes to per GB of the moved bytes (issue 17,
// target 6). That figure counts every process, so it compares paths only
// on an otherwise idle machine, which "everything else" shows.
func cpuUse(before, after cpuSnapshot, moved int64) string {
	w := after.at.Sub(before.at).Seconds()
	m := after.machine.since(before.machine)
	busy := m.total - m.idle - m.steal
	p := make([]any, 0, 8)
	others := busy
	for i := range after.procs {
		d := after.procs[i] - before.procs[i]
		p, others = append(p, d, 100*d/w), others-d
	}
	// What the three did not use went to softirq work charged to no process,
	// kernel threads, and anything else on the machine: large means a
	// neighbour competed and the run is not an idle-machine figure.
	p = append(p, others, 100*others/w)
	return fmt.Sprintf("CPU over %.1fs, %d cores: machine %.0f%% busy (user %.2fs, system %.2fs, irq+softirq %.2fs, idle %.2fs), %.2f core-s per GB moved; ",
		w, runtime.NumCPU(), 100*busy/max(m.total, 1e-9), m.user, m.system, m.softirq, m.idle, busy/max(float64(moved)/1e9, 1e-9)) +
		fmt.Sprintf("gateway a %.2fs (%.0f%% of a core), gateway b %.2fs (%.0f%%), endpoints (this test) %.2fs (%.0f%%), everything else %.2fs (%.0f%%)", p...)
}

// profiles are CPU profiles of both gateways and of this process (the
// endpoints) being taken over one transfer of d.
type profiles struct {
	done chan error
	self *os.File
}

// startProfiles asks each gateway's pprof endpoint for a profile of the next
// d and profiles this process alike, writing <dir>/<name>-{gwa,gwb,endpoints}-cpu.pprof.
func startProfiles(l *lab, dir, name string, d time.Duration) (*profiles, error) {
	p := &profiles{done: make(chan error, 2)}
	for _, c := range []string{"a", "b"} {
		go func() {
			p.done <- fetchProfile(l.ns("gw"+c), d, filepath.Join(dir, name+"-gw"+c+"-cpu.pprof"))
		}()
	}
	f, err := os.Create(filepath.Join(dir, name+"-endpoints-cpu.pprof"))
	if err == nil {
		if err = pprof.StartCPUProfile(f); err != nil {
			f.Close()
		}
	}
	p.self = f
	return p, err
}

func (p *profiles) finish() error {
	pprof.StopCPUProfile()
	errs := []error{p.self.Close()}
	for range 2 {
		errs = append(errs, <-p.done)
	}
	return errors.Join(errs...)
}

func fetchProfile(ns string, d time.Duration, path string) error {
	dial := func(_ context.Context, _, addr string) (net.Conn, error) { return dialIn(ns, addr, 2*time.Second) }
	client := &http.Client{Timeout: d + 15*time.Second, Transport: &http.Transport{DialContext: dial}}
	url := fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", pprofAddr, int(d.Seconds()))
	resp, err := client.Get(url)
	if err != nil {
		return fmt.Errorf("profile of the gateway in %s: %w", ns, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("profile of the gateway in %s: %s: %.200s", ns, resp.Status, body)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// snmpCounters reads /proc/net/snmp as namespace ns sees it, as
// "Proto:Name" -> value: UDP receive errors say whether the gateways' socket
// buffers overflow, TCP retransmissions whether the tunnel drops segments.
func snmpCounters(ns string) (map[string]float64, error) {
	out, err := exec.Command("ip", "netns", "exec", ns, "cat", "/proc/net/snmp").Output()
	if err != nil {
		return nil, fmt.Errorf("reading /proc/net/snmp in %s: %w", ns, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	c := map[string]float64{}
	for i := 0; i+1 < len(lines); i += 2 { // a line of names, then a line of values
		names, values := strings.Fields(lines[i]), strings.Fields(lines[i+1])
		for j := 1; j < min(len(names), len(values)); j++ {
			if v, err := strconv.ParseFloat(values[j], 64); err == nil {
				c[names[0]+names[j]] = v
			}
		}
	}
	return c, nil
}
