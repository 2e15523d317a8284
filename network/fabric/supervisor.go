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

package fabric

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Restart backoff of a gateway process: quick first, so that a killed
// gateway is back within seconds, slower when it keeps failing.
const (
	firstRestartDelay = 500 * time.Millisecond
	maxRestartDelay   = 30 * time.Second
	// stableRun resets the backoff: a gateway that ran this long was healthy.
	stableRun = 30 * time.Second
	// stopGrace is how long a gateway gets to remove its routes and rules.
	stopGrace = 5 * time.Second
	// outputTail is how much of a process's last output is kept for status.
	outputTail = 2048
)

// ProcessState is what the supervisor knows of one gateway process.
type ProcessState struct {
	Running bool
	// StartedAt is when the current (or last) process started.
	StartedAt time.Time
	// Restarts counts exits since the process was first started.
	Restarts int
	// LastExit is how the previous process ended, with its last output.
	LastExit string
}

// Supervisor keeps one process per name running with the arguments last
// given, restarting it when it exits. It is the lab's and a privileged
// manager's way to run gateways without a container runtime.
type Supervisor struct {
	log   *slog.Logger
	mu    sync.Mutex
	procs map[string]*supervised
}

// NewSupervisor returns a supervisor logging to log.
func NewSupervisor(log *slog.Logger) *Supervisor {
	return &Supervisor{log: log, procs: map[string]*supervised{}}
}

type supervised struct {
	argv   []string
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	state ProcessState
}

// Ensure runs argv under name: it starts it if absent, and replaces the
// running process when argv changed (a new peer endpoint, key or remap).
func (s *Supervisor) Ensure(name string, argv []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p, ok := s.procs[name]; ok {
		if slices.Equal(p.argv, argv) {
			return
		}
		s.log.Info("gateway configuration changed, restarting it", "gateway", name)
		p.stop()
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &supervised{argv: slices.Clone(argv), cancel: cancel, done: make(chan struct{})}
	s.procs[name] = p
	go p.loop(ctx, s.log.With("gateway", name))
}

// Stop ends name's process and waits for it to clean up.
func (s *Supervisor) Stop(name string) {
	s.mu.Lock()
	p, ok := s.procs[name]
	delete(s.procs, name)
	s.mu.Unlock()
	if ok {
		p.stop()
	}
}

// StopAll ends every process; the manager calls it when it shuts down, so
// that no gateway outlives the manager that configured it.
func (s *Supervisor) StopAll() {
	s.mu.Lock()
	procs := s.procs
	s.procs = map[string]*supervised{}
	s.mu.Unlock()
	for _, p := range procs {
		p.stop()
	}
}

// State reports name's process; ok is false when none is supervised.
func (s *Supervisor) State(name string) (st ProcessState, ok bool) {
	s.mu.Lock()
	p, ok := s.procs[name]
	s.mu.Unlock()
	if !ok {
		return ProcessState{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.state, true
}

// Names lists the supervised processes.
func (s *Supervisor) Names() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.procs))
	for n := range s.procs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func (p *supervised) stop() {
	p.cancel()
	<-p.done
}

// loop runs the process until ctx ends, restarting it with backoff.
func (p *supervised) loop(ctx context.Context, log *slog.Logger) {
	defer close(p.done)
	delay := firstRestartDelay
	for {
		started := time.Now()
		exit := p.runOnce(ctx, log)
		if ctx.Err() != nil {
			return
		}
		p.mu.Lock()
		p.state.Running, p.state.Restarts, p.state.LastExit = false, p.state.Restarts+1, exit
		p.mu.Unlock()
		if time.Since(started) > stableRun {
			delay = firstRestartDelay
		}
		log.Info("gateway exited, restarting", "after", delay, "exit", exit)
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, maxRestartDelay)
	}
}

// runOnce starts the process and waits for it; when ctx ends it sends
// SIGTERM (the gateway then removes its device, routes and NAT) and kills it
// after stopGrace. It returns how the process ended.
func (p *supervised) runOnce(ctx context.Context, log *slog.Logger) string {
	var tail tailBuffer
	cmd := exec.Command(p.argv[0], p.argv[1:]...)
	cmd.Stdout, cmd.Stderr = &tail, &tail
	// Die with the manager: a gateway left behind would hold the device
	// and port that the next manager's gateway needs.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return fmt.Sprintf("could not start %s: %v", p.argv[0], err)
	}
	p.mu.Lock()
	p.state.Running, p.state.StartedAt = true, time.Now()
	p.mu.Unlock()
	log.Info("gateway started", "pid", cmd.Process.Pid)
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err := <-waited:
		return describeExit(err, tail.String())
	case <-ctx.Done():
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	// The exit status of a gateway we stopped says nothing: it is dropped.
	select {
	case <-waited: //nolint:errcheck // see above
	case <-time.After(stopGrace):
		_ = cmd.Process.Kill()
		<-waited //nolint:errcheck // see above
	}
	p.mu.Lock()
	p.state.Running = false
	p.mu.Unlock()
	return "stopped"
}

func describeExit(err error, output string) string {
	output = strings.TrimSpace(output)
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exited 0: " + output
	case errors.As(err, &ee):
		return fmt.Sprintf("%v: %s", ee.ProcessState, output)
	default:
		return fmt.Sprintf("%v: %s", err, output)
	}
}

// tailBuffer keeps the last outputTail bytes written to it and copies every
// write to the manager's stderr, so gateway logs land in the manager's log.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tailBuffer) Write(b []byte) (int, error) {
	_, _ = os.Stderr.Write(b)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > outputTail {
		t.buf = t.buf[len(t.buf)-outputTail:]
	}
	return len(b), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	// Keep whole lines only: the first one may have been cut.
	if i := bytes.IndexByte(t.buf, '\n'); i >= 0 && len(t.buf) == outputTail {
		return string(t.buf[i+1:])
	}
	return string(t.buf)
}
