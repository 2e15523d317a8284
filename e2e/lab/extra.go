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
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

var httpClient = &http.Client{Timeout: 2 * time.Second}

// StartExtra runs a process that belongs with this cluster (a Spillway
// controller, a gateway): logged to <cluster>/<name>.log, recorded in the state
// so that lab-down stops it, and checked by ready before returning. A process
// of the same name still running is stopped first.
func (c *Cluster) StartExtra(ctx context.Context, name string, args []string, ready func(context.Context) error) error {
	return c.StartExtraWithEnv(ctx, name, args, nil, ready)
}

// StartExtraWithEnv is StartExtra with variables added to the process's
// environment, e.g. KUBECONFIG for controllers that take no --kubeconfig flag.
func (c *Cluster) StartExtraWithEnv(ctx context.Context, name string, args, env []string, ready func(context.Context) error) error {
	if slices.Contains(Components, name) || strings.ContainsAny(name, "/ ") {
		return fmt.Errorf("extra process name %q is reserved or not a simple name", name)
	}
	if err := c.StopExtra(name); err != nil {
		return err
	}
	p, err := startProcess(args, env, c.LogPath(name))
	if err != nil {
		return err
	}
	c.lab.mu.Lock()
	c.state.Processes[name] = p
	c.lab.mu.Unlock()
	if err := c.lab.save(); err != nil {
		return err
	}
	if ready == nil {
		ready = func(context.Context) error { return nil }
	}
	return waitFor(ctx, fmt.Sprintf("cluster %q: waiting for %s", c.Name, name), map[string]*Process{name: p}, ready)
}

// StopExtra stops a process started with StartExtra; an unknown name is no error.
func (c *Cluster) StopExtra(name string) error {
	c.lab.mu.Lock()
	p := c.state.Processes[name]
	c.lab.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Stop(15 * time.Second)
}

// ExtraRunning reports whether a StartExtra process is alive.
func (c *Cluster) ExtraRunning(name string) bool {
	c.lab.mu.Lock()
	defer c.lab.mu.Unlock()
	return c.state.Processes[name].Alive()
}

// PID returns the pid of a live process of the cluster, a component or a
// StartExtra process, so a benchmark can read its memory and CPU in /proc.
func (c *Cluster) PID(name string) (int, error) {
	c.lab.mu.Lock()
	defer c.lab.mu.Unlock()
	p := c.state.Processes[name]
	if !p.Alive() {
		return 0, fmt.Errorf("cluster %q: no %s process is running", c.Name, name)
	}
	return p.PID, nil
}

// ProcessNames lists the cluster's recorded processes, components and extras, sorted.
func (c *Cluster) ProcessNames() []string {
	c.lab.mu.Lock()
	defer c.lab.mu.Unlock()
	return slices.Sorted(maps.Keys(c.state.Processes))
}

// HTTPReady returns a readiness check for a plain-HTTP endpoint on loopback.
func HTTPReady(url string) func(context.Context) error {
	return func(ctx context.Context) error { return httpOK(ctx, httpClient, url) }
}

// firstExtraPort is the offset of the ports left free for extra processes,
// and extraPorts how many there are.
const (
	firstExtraPort = 6
	extraPorts     = 14
)

// ExtraPort returns the i-th loopback port of the cluster's block reserved for
// extra processes (metrics, probes, webhooks), i < 14.
func (c *Cluster) ExtraPort(i int) (int, error) {
	if i < 0 || i >= extraPorts {
		return 0, fmt.Errorf("extra port index %d out of range 0-%d", i, extraPorts-1)
	}
	return c.state.Ports.EtcdClient + firstExtraPort + i, nil
}
