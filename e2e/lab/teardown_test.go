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
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// Every component is stopped by exactly one stage, or a new one would
// outlive the lab.
func TestTeardownStagesCoverEveryComponentOnce(t *testing.T) {
	g := NewWithT(t)
	var staged []string
	for _, stage := range teardownStages {
		staged = append(staged, stage...)
	}
	g.Expect(staged).To(ConsistOf(Components))
	g.Expect(teardownStages[0]).To(BeNil(), "the suites' processes go first")
	g.Expect(teardownStages[len(teardownStages)-1]).To(Equal([]string{Etcd}), "etcd goes last")
}

// Each process takes a second to exit after SIGTERM, as a graceful shutdown
// does, and writes when it got the signal: the teardown stops two clusters
// stage by stage (the suite's processes, then clients, API server, etcd),
// and the processes of a stage together.
func TestStopProcessesStopsStageByStageAndAStageTogether(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	slow := func(name string) *Process {
		stamp := filepath.Join(dir, name+".stopped")
		// The ready file says the trap is installed: a signal before it would kill the shell at once.
		script := `trap 'date +%s%N > ` + stamp + `; sleep 1; exit 0' TERM; : > ` + filepath.Join(dir, name+".ready") + `; while :; do sleep 0.05; done`
		p, err := startProcess([]string{"/bin/sh", "-c", script}, nil, filepath.Join(dir, name+".log"))
		g.Expect(err).NotTo(HaveOccurred())
		return p
	}
	l := &Lab{state: labState{Order: []string{"rome", "milan"}, Clusters: map[string]*ClusterState{}}}
	for _, cluster := range l.state.Order {
		procs := map[string]*Process{"spillway-controller": slow(cluster + "-spillway-controller")}
		for _, comp := range Components {
			procs[comp] = slow(cluster + "-" + comp)
		}
		l.state.Clusters[cluster] = &ClusterState{Processes: procs}
	}
	g.Eventually(func() ([]string, error) { return filepath.Glob(filepath.Join(dir, "*.ready")) }).
		WithTimeout(10 * time.Second).Should(HaveLen(2 * (len(Components) + 1)))

	start := time.Now()
	g.Expect(l.stopProcesses()).To(BeEmpty())
	took := time.Since(start)

	stoppedAt := func(name string) time.Time {
		data, err := os.ReadFile(filepath.Join(dir, name+".stopped"))
		g.Expect(err).NotTo(HaveOccurred(), "%s got no SIGTERM", name)
		ns, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		g.Expect(err).NotTo(HaveOccurred())
		return time.Unix(0, ns)
	}
	stageOf := func(comp string) int {
		for i, stage := range teardownStages {
			if slices.Contains(stage, comp) {
				return i
			}
		}
		return 0
	}
	for _, cluster := range l.state.Order {
		for comp, p := range l.state.Clusters[cluster].Processes {
			g.Expect(p.Alive()).To(BeFalse(), "%s %s", cluster, comp)
			at := stoppedAt(cluster + "-" + comp)
			for _, other := range l.state.Order {
				for otherComp := range l.state.Clusters[other].Processes {
					if stageOf(otherComp) < stageOf(comp) {
						// The earlier stage had exited (a second after its signal) before this one was signalled.
						g.Expect(at.Sub(stoppedAt(other+"-"+otherComp))).To(BeNumerically(">=", time.Second),
							"%s %s signalled before %s %s had exited", cluster, comp, other, otherComp)
					}
				}
			}
		}
	}
	// Four stages of a second each; one at a time, the 14 processes took 14 s.
	g.Expect(took).To(BeNumerically("<", 8*time.Second), "the processes of a stage stop together")
}
