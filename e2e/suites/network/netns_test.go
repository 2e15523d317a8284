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
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/vishvananda/netns"
)

// hostSupport says why this host cannot run the fabric tests, or "" when it can.
func hostSupport() string {
	if os.Geteuid() != 0 {
		return "needs root and /dev/net/tun: not running as root"
	}
	f, err := os.OpenFile("/dev/net/tun", os.O_RDWR, 0)
	if err != nil {
		return fmt.Sprintf("needs root and /dev/net/tun: %v", err)
	}
	f.Close()
	for _, tool := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Sprintf("needs %s (iproute2, iptables): run hack/netdeps.sh", tool)
		}
	}
	return ""
}

// inNamespace runs fn on an OS thread moved into the named network namespace.
// Sockets fn creates stay in that namespace after the thread moves back, which
// lets the test process talk to its lab without helper processes.
func inNamespace(name string, fn func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- err
			return
		}
		defer orig.Close()
		target, err := netns.GetFromName(name)
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("opening netns %s: %w", name, err)
			return
		}
		defer target.Close()
		if err := netns.Set(target); err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("entering netns %s: %w", name, err)
			return
		}
		ferr := fn()
		if err := netns.Set(orig); err != nil {
			// Leave the thread locked: Go discards it with this goroutine
			// rather than reuse a thread stuck in the lab namespace.
			errc <- errors.Join(ferr, fmt.Errorf("leaving netns %s: %w", name, err))
			return
		}
		runtime.UnlockOSThread()
		errc <- ferr
	}()
	return <-errc
}

func listenIn(ns, addr string) (net.Listener, error) {
	var l net.Listener
	err := inNamespace(ns, func() (err error) {
		l, err = net.Listen("tcp", addr)
		return err
	})
	return l, err
}

func dialIn(ns, addr string, timeout time.Duration) (net.Conn, error) {
	var c net.Conn
	err := inNamespace(ns, func() (err error) {
		c, err = net.DialTimeout("tcp", addr, timeout)
		return err
	})
	return c, err
}

// httpClientIn returns a client whose connections start in namespace ns, to
// scrape a gateway's loopback-bound metrics.
func httpClientIn(ns string) *http.Client {
	dial := func(_ context.Context, _, addr string) (net.Conn, error) { return dialIn(ns, addr, 2*time.Second) }
	return &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DialContext: dial, DisableKeepAlives: true}}
}

// serveEcho answers each line with "<line> from <client address>", so the
// caller learns at which address the server's side saw it.
func serveEcho(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return // listener closed
		}
		go func() {
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			buf := make([]byte, 256)
			n, err := c.Read(buf)
			if err != nil {
				return
			}
			from, _, _ := net.SplitHostPort(c.RemoteAddr().String())
			fmt.Fprintf(c, "%s from %s\n", strings.TrimSpace(string(buf[:n])), from)
		}()
	}
}

// echo sends msg from namespace ns to addr and returns the answer.
func echo(ns, addr, msg string) (string, error) {
	c, err := dialIn(ns, addr, 500*time.Millisecond)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := fmt.Fprintln(c, msg); err != nil {
		return "", err
	}
	buf := make([]byte, 256)
	n, err := c.Read(buf)
	return strings.TrimSpace(string(buf[:n])), err
}
