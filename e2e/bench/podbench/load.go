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
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// LoadSample is one second of a batch: how busy the machine was and how
// much of it the lab's processes used. Issue 17's tail at 10,000 pods came
// in bursts; sampled once a second, they were stretches where the whole
// machine was busy, which the batch's CPU totals cannot show.
type LoadSample struct {
	At time.Time `json:"at"`
	// MachineBusy is the share of the machine's CPU time not idle (the
	// creator and everything else on the host included), 0 to 1.
	MachineBusy float64 `json:"machineBusy"`
	// LabCores is the CPU the lab's processes used, in cores.
	LabCores float64 `json:"labCores"`
}

// machineTimes are the busy and total jiffies of /proc/stat's "cpu" line.
type machineTimes struct{ busy, total uint64 }

// ParseMachineStat reads the summed "cpu" line of /proc/stat. Idle and
// iowait count as not busy; guest time is already inside user and nice.
func ParseMachineStat(stat string) (busy, total uint64, err error) {
	for line := range strings.Lines(stat) {
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] != "cpu" {
			continue
		}
		// user nice system idle iowait irq softirq steal [guest guest_nice]
		if len(fields) < 9 {
			return 0, 0, fmt.Errorf("/proc/stat: %d fields on the cpu line, want at least 8 counters", len(fields)-1)
		}
		for i, f := range fields[1:9] {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("/proc/stat: cpu counter %d %q: %w", i+1, f, err)
			}
			total += n
			if i != 3 && i != 4 {
				busy += n
			}
		}
		return busy, total, nil
	}
	return 0, 0, fmt.Errorf("/proc/stat: no summed cpu line")
}

func readMachineTimes() (machineTimes, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineTimes{}, err
	}
	busy, total, err := ParseMachineStat(string(data))
	return machineTimes{busy, total}, err
}

// loadSample is the second between two readings.
func loadSample(at time.Time, elapsed time.Duration, m0, m1 machineTimes, lab0, lab1 CPU) LoadSample {
	s := LoadSample{At: at}
	if m1.total > m0.total {
		s.MachineBusy = float64(m1.busy-m0.busy) / float64(m1.total-m0.total)
	}
	if elapsed > 0 {
		s.LabCores = float64(lab1.Since(lab0).Total()) / float64(elapsed)
	}
	return s
}

// loadSampler reads the machine's and the lab's CPU every interval until
// stopped.
type loadSampler struct {
	stop    context.CancelFunc
	done    chan struct{}
	mu      sync.Mutex
	samples []LoadSample
}

// sampleLoad starts sampling the clusters' processes and the machine. A
// process the lab restarts between two readings counts from zero (CPU.Since);
// a failed reading skips that second.
func sampleLoad(ctx context.Context, interval time.Duration, clusters ...*lab.Cluster) *loadSampler {
	ctx, cancel := context.WithCancel(ctx)
	l := &loadSampler{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		prevAt, prevM, prevLab, ok := readLoad(clusters)
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			at, m, labCPU, read := readLoad(clusters)
			if read && ok {
				l.mu.Lock()
				l.samples = append(l.samples, loadSample(prevAt, at.Sub(prevAt), prevM, m, prevLab, labCPU))
				l.mu.Unlock()
			}
			prevAt, prevM, prevLab, ok = at, m, labCPU, read
		}
	}()
	return l
}

func readLoad(clusters []*lab.Cluster) (time.Time, machineTimes, CPU, bool) {
	at := time.Now()
	m, err := readMachineTimes()
	if err != nil {
		return at, m, nil, false
	}
	labCPU, err := ReadCPU(clusters...)
	return at, m, labCPU, err == nil
}

// taken is how many samples the sampler holds so far.
func (l *loadSampler) taken() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.samples)
}

// finish stops the sampler and returns its samples.
func (l *loadSampler) finish() []LoadSample {
	l.stop()
	<-l.done
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.samples
}

// loadSecond is how often the bench samples the load.
const loadSecond = time.Second

// busyThreshold is when the machine counts as saturated: on two cores,
// 1.9 cores busy leaves no room for a burst of work.
const busyThreshold = 0.95

// LoadSummary is a stretch of samples: the mean of each measure, and how
// many seconds the machine was saturated (busyThreshold).
type LoadSummary struct {
	Seconds, Saturated    int
	MachineBusy, LabCores float64
}

// SummarizeLoad summarizes the samples taken in [from, to).
func SummarizeLoad(samples []LoadSample, from, to time.Time) LoadSummary {
	var s LoadSummary
	for _, x := range samples {
		if x.At.Before(from) || !x.At.Before(to) {
			continue
		}
		s.Seconds++
		s.MachineBusy += x.MachineBusy
		s.LabCores += x.LabCores
		if x.MachineBusy >= busyThreshold {
			s.Saturated++
		}
	}
	if s.Seconds > 0 {
		s.MachineBusy /= float64(s.Seconds)
		s.LabCores /= float64(s.Seconds)
	}
	return s
}
