//go:build e2e || bench

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
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// gatewayProc is a spillway-gateway this test started inside a namespace.
type gatewayProc struct {
	name   string
	cmd    *exec.Cmd
	done   chan error
	stderr *outputTail
}

// stop signals the gateway and waits for it. One that has not exited after
// grace is sent SIGQUIT, so that the Go runtime writes every goroutine's
// stack to its stderr, then killed; the error carries the stacks that run
// the gateway's own code, which say where it hung.
func (p *gatewayProc) stop(sig syscall.Signal, grace time.Duration) error {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.done: //nolint:errcheck // how a signalled gateway exits is not what stop reports
		return nil
	case <-time.After(grace):
	}
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.done: //nolint:errcheck // it dumped its stacks and exited
	case <-time.After(stackDumpGrace):
		_ = p.cmd.Process.Kill()
		<-p.done //nolint:errcheck // killed: its exit status says nothing
	}
	return fmt.Errorf("gateway %s (pid %d) ignored %s for %s; its goroutines in its own code:\n%s",
		p.name, p.cmd.Process.Pid, sig, grace, ownStacks(p.stderr.String()))
}

// ownStacks keeps, from a Go runtime's goroutine dump, the goroutines whose
// stack passes through this module's code; the lab's log has the rest.
func ownStacks(dump string) string {
	var kept []string
	for _, g := range strings.Split(dump, "\n\n") {
		if strings.HasPrefix(g, "goroutine ") && strings.Contains(g, "spillway-dev/spillway") {
			kept = append(kept, g)
		}
	}
	if len(kept) == 0 {
		return "(no goroutine dump in its stderr: it ended just before the SIGQUIT, or did not answer it)"
	}
	return strings.Join(kept, "\n\n")
}

// outputTail keeps the last outputTailBytes written to it.
type outputTail struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

const outputTailBytes = 1 << 20

func (t *outputTail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(b)
	if over := t.buf.Len() - outputTailBytes; over > 0 {
		t.buf.Next(over)
	}
	return len(b), nil
}

func (t *outputTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// stackDumpGrace is how long a hung gateway gets to write its stacks.
const stackDumpGrace = 2 * time.Second

// gatewayArgs are the flags of cluster c's gateway to its peer, both on the
// same pod CIDR. a computes its remap of b; b is told its remap of a.
func (l *lab) gatewayArgs(c string) ([]string, error) {
	peer, local, peerUnderlay, peerTunnel := "b", tunnelA, underlayB, tunnelB
	if c == "b" {
		peer, local, peerUnderlay, peerTunnel = "a", tunnelB, underlayA, tunnelA
	}
	peerKey, err := l.publicKey(peer)
	if err != nil {
		return nil, fmt.Errorf("public key of %s: %w", peer, err)
	}
	args := []string{"--cluster-id", c, "--remote-cluster-id", peer, "--private-key-file", l.keyFile(c),
		"--peer-public-key", peerKey, "--peer-endpoint", peerUnderlay + ":51820",
		"--tunnel-address", local + "/30", "--peer-tunnel-address", peerTunnel,
		"--local-pod-cidr", podCIDR, "--remote-pod-cidr", podCIDR, "--interface-name", l.iface(c),
		"--metrics-bind-address", metricsAddr, "--probe-interval", "500ms"}
	if c == "b" {
		args = append(args, "--remapped-remote-cidr", bSeesA)
	}
	return args, nil
}

// startGateway runs the gateway binary in namespace ns under name; its log
// goes to the lab's log writer.
func (l *lab) startGateway(name, ns string, args []string) error {
	if old, ok := l.procs[name]; ok {
		select {
		case <-old.done: //nolint:errcheck // only whether it has exited matters here
		default:
			return fmt.Errorf("gateway %s is still running", name)
		}
	}
	cmd := exec.Command("ip", append([]string{"netns", "exec", ns, l.bin}, args...)...)
	tail := &outputTail{}
	cmd.Stdout, cmd.Stderr = prefixed(l.log, name), io.MultiWriter(prefixed(l.log, name), tail)
	if len(l.gatewayEnv) > 0 {
		cmd.Env = append(os.Environ(), l.gatewayEnv...)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting gateway %s: %w", name, err)
	}
	p := &gatewayProc{name: name, cmd: cmd, done: make(chan error, 1), stderr: tail}
	go func() { p.done <- cmd.Wait(); close(p.done) }()
	l.procs[name] = p
	return nil
}

type prefixWriter struct {
	w      io.Writer
	prefix string
}

func prefixed(w io.Writer, name string) io.Writer { return prefixWriter{w, "[gateway " + name + "] "} }

func (p prefixWriter) Write(b []byte) (int, error) {
	_, err := p.w.Write(append([]byte(p.prefix), b...))
	return len(b), err
}
