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

// Package lab runs real Kubernetes control planes on one machine: etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler built from upstream
// sources, with nodes simulated by kwok. The demo, every e2e suite and every
// benchmark start their clusters through it.
package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sync/errgroup"
)

// KubeVersion is the upstream release the lab builds.
const KubeVersion = "v1.36.4"

// Options configure a lab.
type Options struct {
	// Dir holds the state: <Dir>/state.json and one folder per cluster.
	Dir string
	// PortBase is the first loopback port; each cluster takes a block after it.
	PortBase int
	// OverlappingCIDRs gives every cluster the same pod and service ranges.
	OverlappingCIDRs bool
	// QPS is the client rate limit of controller-manager and scheduler.
	QPS ClientQPS
	// Binaries; zero value means ResolveBinaries.
	Binaries Binaries
	// Out receives progress lines; nil discards them.
	Out io.Writer
}

type labState struct {
	Binaries Binaries                 `json:"binaries"`
	Order    []string                 `json:"order"`
	Clusters map[string]*ClusterState `json:"clusters"`
}

// Lab is a set of running clusters sharing a state directory.
type Lab struct {
	dir   string
	opts  Options
	bins  Binaries
	out   io.Writer
	mu    sync.Mutex
	state labState
	lock  *os.File
}

// ErrNoLab is returned by Attach when no lab runs in the directory.
var ErrNoLab = errors.New("no lab state found")

func (o Options) withDefaults() Options {
	if o.Dir == "" {
		o.Dir = ".lab"
	}
	if o.PortBase == 0 {
		o.PortBase = DefaultPortBase
	}
	if o.QPS.QPS == 0 {
		o.QPS = DefaultClientQPS
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	return o
}

func (l *Lab) statePath() string { return filepath.Join(l.dir, "state.json") }

func (l *Lab) save() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	data, err := json.MarshalIndent(l.state, "", "  ")
	if err != nil {
		return err
	}
	tmp := l.statePath() + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, l.statePath())
}

func open(opts Options) (*Lab, error) {
	opts = opts.withDefaults()
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	l := &Lab{dir: dir, opts: opts, out: opts.Out}
	// One lab command at a time per directory: a second lab-up waits, then sees the first's state.
	if l.lock, err = os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644); err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(l.lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(l.statePath())
	switch {
	case errors.Is(err, os.ErrNotExist):
		l.state = labState{Clusters: map[string]*ClusterState{}}
	case err != nil:
		l.Close()
		return nil, err
	default:
		if err := json.Unmarshal(data, &l.state); err != nil {
			l.Close()
			return nil, fmt.Errorf("%s is corrupt (%w): run `make lab-down` to clear it", l.statePath(), err)
		}
	}
	return l, nil
}

// Close releases the directory lock; the clusters keep running.
func (l *Lab) Close() {
	if l.lock != nil {
		_ = l.lock.Close()
		l.lock = nil
	}
}

// Up starts the clusters of specs, or checks that exactly these clusters already
// run (then nothing changes; dead components are restarted with their data).
// A new lab that fails to start is torn down: nothing half-started stays behind.
func Up(ctx context.Context, opts Options, specs []ClusterSpec) (*Lab, error) {
	l, err := open(opts)
	if err != nil {
		return nil, err
	}
	if len(l.state.Order) > 0 && !slices.Equal(l.state.Order, Names(specs)) {
		running := strings.Join(l.state.Order, " ")
		l.Close()
		return nil, fmt.Errorf("a lab with clusters %q already runs in %s; you asked for %q: run `make lab-down` first, or lab-up with CLUSTERS=%q",
			running, l.dir, strings.Join(Names(specs), " "), running)
	}
	fresh := len(l.state.Order) == 0
	if !fresh && l.allRunning() {
		fmt.Fprintf(l.out, "lab: %s already running in %s; nothing changed\n", strings.Join(l.state.Order, ", "), l.dir)
		l.bins = l.state.Binaries
		return l, nil
	}
	if fresh {
		if err := l.initState(specs); err != nil {
			l.Close()
			return nil, err
		}
	}
	if err := l.startClusters(ctx); err != nil {
		if fresh {
			_ = l.teardown()
		}
		l.Close()
		return nil, err
	}
	return l, nil
}

func (l *Lab) initState(specs []ClusterSpec) error {
	bins := l.opts.Binaries
	if bins == (Binaries{}) {
		var err error
		if bins, err = ResolveBinaries(l.out); err != nil {
			return err
		}
	}
	if bins.Lab == "" {
		var err error
		if bins.Lab, err = LabBinary(l.out); err != nil {
			return err
		}
	}
	l.state = labState{Binaries: bins, Order: Names(specs), Clusters: map[string]*ClusterState{}}
	for i, spec := range specs {
		ports, err := AllocatePorts(l.opts.PortBase, i)
		if err != nil {
			return err
		}
		cidrs, err := AllocateCIDRs(i, l.opts.OverlappingCIDRs)
		if err != nil {
			return err
		}
		l.state.Clusters[spec.Name] = &ClusterState{Spec: spec, Index: i, Ports: ports, CIDRs: cidrs, QPS: l.opts.QPS, Processes: map[string]*Process{}}
	}
	return l.save()
}

func (l *Lab) startClusters(ctx context.Context) error {
	l.bins = l.state.Binaries
	g, gctx := errgroup.WithContext(ctx)
	for _, name := range l.state.Order {
		c := l.cluster(name)
		g.Go(func() error {
			start := time.Now()
			if err := c.startAll(gctx); err != nil {
				return err
			}
			fmt.Fprintf(l.out, "lab: cluster %s ready in %s (api %s, pods %s, services %s, kubeconfig %s)\n",
				c.Name, time.Since(start).Round(100*time.Millisecond), c.Server(), c.PodCIDR(), c.ServiceCIDR(), c.Kubeconfig())
			return nil
		})
	}
	return g.Wait()
}

func (l *Lab) allRunning() bool {
	for _, cs := range l.state.Clusters {
		for _, comp := range Components {
			if !cs.Processes[comp].Alive() {
				return false
			}
		}
	}
	return true
}

// Attach opens a running lab without starting anything.
func Attach(opts Options) (*Lab, error) {
	l, err := open(opts)
	if err != nil {
		return nil, err
	}
	if len(l.state.Order) == 0 {
		l.Close()
		return nil, fmt.Errorf("%s: %w: start one with `make lab-up CLUSTERS=\"rome milan\"`", l.dir, ErrNoLab)
	}
	l.bins = l.state.Binaries
	return l, nil
}

func (l *Lab) cluster(name string) *Cluster {
	return &Cluster{Name: name, lab: l, state: l.state.Clusters[name]}
}

// Cluster returns a cluster by name, or an error listing the ones that exist.
func (l *Lab) Cluster(name string) (*Cluster, error) {
	if _, ok := l.state.Clusters[name]; !ok {
		return nil, fmt.Errorf("no cluster %q in the lab at %s (clusters: %s)", name, l.dir, strings.Join(l.state.Order, ", "))
	}
	return l.cluster(name), nil
}

// Clusters returns every cluster in start order.
func (l *Lab) Clusters() []*Cluster {
	out := make([]*Cluster, 0, len(l.state.Order))
	for _, n := range l.state.Order {
		out = append(out, l.cluster(n))
	}
	return out
}

// Dir is the lab's state directory.
func (l *Lab) Dir() string { return l.dir }

// Binaries the lab runs.
func (l *Lab) Binaries() Binaries { return l.bins }

// teardownStages are the steps of a teardown, in order: the processes suites
// added (controllers, gateways: clients of any cluster's API server), then
// each cluster's own clients (kwok, scheduler, controller manager, the peer
// link), then its API server, then etcd. Each step waits for the one before.
var teardownStages = [][]string{nil, {Kwok, Scheduler, ControllerManager, PeerLink}, {APIServer}, {Etcd}}

// stopProcesses stops every process of every cluster, stage by stage. Within
// a stage the processes stop together: none depends on another of its stage,
// and a stop is mostly a wait for a graceful exit, which one at a time made
// every suite's teardown the sum of them all.
func (l *Lab) stopProcesses() []error {
	var (
		mu   sync.Mutex
		errs []error
	)
	for _, stage := range teardownStages {
		var wg sync.WaitGroup
		for _, name := range l.state.Order {
			for comp, p := range l.state.Clusters[name].Processes {
				component := slices.Contains(Components, comp)
				if (stage == nil && component) || (stage != nil && !slices.Contains(stage, comp)) {
					continue
				}
				wg.Go(func() {
					if err := p.Stop(15 * time.Second); err != nil {
						mu.Lock()
						errs = append(errs, fmt.Errorf("cluster %q %s: %w", name, comp, err))
						mu.Unlock()
					}
				})
			}
		}
		wg.Wait()
	}
	return errs
}

// Down stops every process the lab started, by pid, and removes its state.
func (l *Lab) Down() error {
	defer l.Close()
	return l.teardown()
}

func (l *Lab) teardown() error {
	errs := l.stopProcesses()
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	entries, err := os.ReadDir(l.dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != "lock" {
			if err := os.RemoveAll(filepath.Join(l.dir, e.Name())); err != nil {
				errs = append(errs, err)
			}
		}
	}
	l.state = labState{Clusters: map[string]*ClusterState{}}
	return errors.Join(errs...)
}

// DownDir tears down whatever lab runs in dir; no lab is not an error.
func DownDir(dir string) error {
	l, err := Attach(Options{Dir: dir})
	if errors.Is(err, ErrNoLab) {
		return nil
	}
	if err != nil {
		return err
	}
	return l.Down()
}
