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
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestWaitForReportsADeadComponentWithItsLog(t *testing.T) {
	g := NewWithT(t)
	log := filepath.Join(t.TempDir(), "x.log")
	p, err := startProcess([]string{"/bin/sh", "-c", "echo 'flag --bogus not recognised'; exit 3"}, nil, log)
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = waitFor(ctx, "waiting for x", map[string]*Process{"x": p}, func(context.Context) error { return errors.New("not yet") })
	g.Expect(errors.Is(err, ErrComponentDied)).To(BeTrue(), "got %v", err)
	g.Expect(err.Error()).To(ContainSubstring("flag --bogus not recognised"))
}

func TestStopKillsTheProcessAndAliveFollows(t *testing.T) {
	g := NewWithT(t)
	p, err := startProcess([]string{"/bin/sleep", "60"}, nil, filepath.Join(t.TempDir(), "s.log"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(p.Alive()).To(BeTrue())
	g.Expect(p.Stop(5 * time.Second)).To(Succeed())
	g.Expect(p.Alive()).To(BeFalse())
}

func TestAliveRejectsARecycledPid(t *testing.T) {
	g := NewWithT(t)
	p, err := startProcess([]string{"/bin/sleep", "60"}, nil, filepath.Join(t.TempDir(), "s.log"))
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = p.Stop(time.Second) }()
	// Same pid, recorded as another command (as after a reboot): not ours, never signalled.
	other := &Process{PID: p.PID, Args: []string{"/usr/bin/etcd"}}
	g.Expect(other.Alive()).To(BeFalse())
}

func TestStartProcessNamesAMissingBinary(t *testing.T) {
	_, err := startProcess([]string{"/nonexistent/kube-apiserver"}, nil, filepath.Join(t.TempDir(), "a.log"))
	NewWithT(t).Expect(err).To(MatchError(ContainSubstring("/nonexistent/kube-apiserver is missing")))
}

// A lock the test inherited (as from `flock LOCK go test`) must not pass to
// the lab's components, or it outlives the suite with them.
func TestStartProcessDoesNotHandOnInheritedDescriptors(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Clear close-on-exec, as a descriptor inherited from a parent is.
	if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_SETFD, 0); errno != 0 {
		t.Fatal(errno)
	}
	out := filepath.Join(t.TempDir(), "fds.log")
	p, err := startProcess([]string{"/bin/sh", "-c", "ls /proc/self/fd"}, nil, out)
	if err != nil {
		t.Fatal(err)
	}
	<-p.exited
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	fd := strconv.Itoa(int(f.Fd()))
	for _, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == fd {
			t.Fatalf("descriptor %d reached the child:\n%s", f.Fd(), data)
		}
	}
}
