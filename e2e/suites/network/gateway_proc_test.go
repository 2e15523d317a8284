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
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// gatewayProc is a spillway-gateway this test started inside a namespace.
type gatewayProc struct {
	cmd  *exec.Cmd
	done chan error
}

// stop signals the gateway and waits for it, killing it after grace.
func (p *gatewayProc) stop(sig syscall.Signal, grace time.Duration) error {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-p.done: //nolint:errcheck // how a signalled gateway exits is not what stop reports
		return nil
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done //nolint:errcheck // killed: its exit status says nothing
		return fmt.Errorf("gateway pid %d ignored %s for %s and was killed", p.cmd.Process.Pid, sig, grace)
	}
}

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
	cmd.Stdout, cmd.Stderr = prefixed(l.log, name), prefixed(l.log, name)
	if len(l.gatewayEnv) > 0 {
		cmd.Env = append(os.Environ(), l.gatewayEnv...)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting gateway %s: %w", name, err)
	}
	p := &gatewayProc{cmd: cmd, done: make(chan error, 1)}
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
