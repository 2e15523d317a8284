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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is one running component, as recorded in the lab's state file so
// that a later `lab down` (another process) can stop exactly what was started.
type Process struct {
	PID  int      `json:"pid"`
	Args []string `json:"args"`
	// Env is added to the lab's environment (KUBECONFIG for controllers that read no flag).
	Env []string `json:"env,omitempty"`
	Log string   `json:"log"`
	// exited is closed when this process, started by us, has been reaped;
	// exitState then says how it ended.
	exited    chan struct{}
	exitState string
}

// startProcess runs args in its own session, output appended to logPath. The
// session makes the component outlive the command that started it (lab-up
// returns while the clusters keep running) and lets us signal its whole group.
func startProcess(args, env []string, logPath string) (*Process, error) {
	if _, err := os.Stat(args[0]); err != nil {
		return nil, fmt.Errorf("binary %s is missing: run `make lab-up` (it builds the lab binaries) or hack/kubebin.sh: %w", args[0], err)
	}
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	fmt.Fprintf(logFile, "\n=== %s spillway-lab starting: %s\n", time.Now().Format(time.RFC3339), strings.Join(args, " "))
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", args[0], err)
	}
	p := &Process{PID: cmd.Process.Pid, Args: args, Env: env, Log: logPath, exited: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		p.exitState = "exited"
		if err != nil {
			p.exitState = err.Error()
		}
		close(p.exited)
	}()
	return p, nil
}

// closeInheritedOnExec marks every descriptor above stderr close-on-exec.
// Go opens its own that way, but descriptors this process inherited stay
// open across exec: `flock /tmp/spillway-e2e.lock go test ...` hands its lock
// to the test, and every component started from it would hold the lock for
// as long as the lab lives, long after the suite (with SPILLWAY_E2E_KEEP=1,
// or after a crash).
func closeInheritedOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// Alive reports whether the process runs. For a process this program started,
// the reaper goroutine knows; for one recorded by another lab command, the pid
// must still run the recorded command, so a recycled pid is never mistaken for
// (or killed as) ours.
func (p *Process) Alive() bool {
	if p == nil || p.PID <= 0 {
		return false
	}
	if p.exited != nil {
		// Ours: the reaper knows. (Right after exec, /proc/<pid>/cmdline can
		// briefly read empty, so the identity check below would misjudge it.)
		select {
		case <-p.exited:
			return false
		default:
			return true
		}
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/stat")
	if err != nil {
		return false
	}
	// A zombie has exited; our parent may simply not have reaped it yet.
	if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
		return false
	}
	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return len(p.Args) > 0 && string(argv0) == p.Args[0]
}

// Stop sends SIGTERM to the process group, waits up to grace, then kills it.
func (p *Process) Stop(grace time.Duration) error {
	if !p.Alive() {
		return nil
	}
	_ = syscall.Kill(-p.PID, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for time.Now().Before(deadline) {
		if !p.Alive() {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-p.PID, syscall.SIGKILL)
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if !p.Alive() {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("process %d (%s) survived SIGKILL", p.PID, p.Args[0])
}

// LogTail returns the last n lines of the process log, for error messages.
func (p *Process) LogTail(n int) string {
	return tailFile(p.Log, n)
}

func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(no log at %s: %v)", path, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ErrComponentDied is returned when a component exits while the lab waits for it.
var ErrComponentDied = errors.New("component exited")

// waitFor polls check until it returns nil, the context ends, or one of the
// watched processes dies (then the error carries the tail of its log).
func waitFor(ctx context.Context, what string, watched map[string]*Process, check func(context.Context) error) error {
	var last error
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		for name, p := range watched {
			if !p.Alive() {
				return fmt.Errorf("%s: %s %w (pid %d, %s); last lines of %s:\n%s", what, name, ErrComponentDied, p.PID, p.describeExit(), p.Log, p.LogTail(25))
			}
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: timed out: %w", what, last)
		case <-tick.C:
		}
	}
}

// describeExit says how a process we started ended, when we know.
func (p *Process) describeExit() string {
	if p.exited == nil {
		return "not started by this process"
	}
	select {
	case <-p.exited:
		return p.exitState
	default:
		return "still running but not recognisable as ours"
	}
}
