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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Link stands in for the network between a cluster and its peers: a TCP
// relay in front of the cluster's API server that every peer dials instead of
// the API server itself (the provider's manager publishes the link's address
// in the identities it issues). Everything is on loopback, so the lab cannot
// unplug a cable; the link can stop carrying bytes instead.
//
// Partitioned, it forwards nothing in either direction and dials nothing for
// new connections, yet closes none: clients see what a cut network shows
// them, timeouts (TLS handshakes, HTTP/2 pings, requests), never a refusal or
// a reset, and the processes on both sides keep running. Healed, it forwards
// again what TCP would have retransmitted: the bytes held back, in order, on
// the connections the clients have not given up meanwhile.
type Link struct {
	// Upstream is the API server's host:port.
	Upstream string

	mu    sync.Mutex
	open  chan struct{} // closed while the link carries traffic
	since time.Time     // when the current partition began
	// live counts relayed connections, held those accepted during a partition
	// and not yet dialled upstream.
	live, held atomic.Int64
}

// NewLink returns a healed link to upstream.
func NewLink(upstream string) *Link {
	l := &Link{Upstream: upstream, open: make(chan struct{})}
	close(l.open)
	return l
}

// Partition stops the link carrying traffic; a second call changes nothing.
func (l *Link) Partition() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.open:
		l.open, l.since = make(chan struct{}), time.Now()
	default:
	}
}

// Heal lets the link carry traffic again; healing a healed link changes nothing.
func (l *Link) Heal() {
	l.mu.Lock()
	defer l.mu.Unlock()
	select {
	case <-l.open:
	default:
		close(l.open)
	}
}

// LinkStatus is what the link's control endpoint reports.
type LinkStatus struct {
	Partitioned bool `json:"partitioned"`
	// Since is when the current partition began (zero when healed).
	Since time.Time `json:"since,omitzero"`
	// Connections are the relayed connections, Held those accepted during a
	// partition that wait for it to heal.
	Connections int64 `json:"connections"`
	Held        int64 `json:"held"`
}

// State reports whether the link is partitioned and what it carries.
func (l *Link) State() LinkStatus {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := LinkStatus{Connections: l.live.Load(), Held: l.held.Load()}
	select {
	case <-l.open:
	default:
		s.Partitioned, s.Since = true, l.since
	}
	return s
}

// waitOpen returns once the link carries traffic, or when ctx ends.
func (l *Link) waitOpen(ctx context.Context) error {
	l.mu.Lock()
	open := l.open
	l.mu.Unlock()
	select {
	case <-open:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Serve relays every connection accepted on ln until ctx ends.
func (l *Link) Serve(ctx context.Context, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		_ = ln.Close()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go l.relay(ctx, conn)
	}
}

// relay carries one connection. One accepted during a partition is held
// unanswered (the kernel completed its handshake, as a SYN to a black hole
// never is: the client's next step, TLS, times out instead of its connect).
func (l *Link) relay(ctx context.Context, down net.Conn) {
	defer down.Close()
	l.held.Add(1)
	err := l.waitOpen(ctx)
	l.held.Add(-1)
	if err != nil {
		return
	}
	// A stopped API server: the connection is closed, as a load balancer
	// whose only backend is down would close it.
	up, err := net.DialTimeout("tcp", l.Upstream, 5*time.Second)
	if err != nil {
		return
	}
	defer up.Close()
	l.live.Add(1)
	defer l.live.Add(-1)
	done := make(chan bool, 2)
	go func() { done <- l.pipe(ctx, up, down) }()
	go func() { done <- l.pipe(ctx, down, up) }()
	if clean := <-done; !clean {
		// One side failed: close both so the other direction ends too.
		_ = down.Close()
		_ = up.Close()
	}
	<-done
}

// pipe copies src to dst while the link is open, holding what it read while
// it is not. It reports whether src ended cleanly (EOF, passed on as a
// half-close) rather than with an error.
func (l *Link) pipe(ctx context.Context, dst, src net.Conn) bool {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if l.waitOpen(ctx) != nil {
				return false
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return false
			}
		}
		if errors.Is(err, io.EOF) {
			if tc, ok := dst.(*net.TCPConn); ok {
				_ = tc.CloseWrite()
			}
			return true
		}
		if err != nil {
			return false
		}
	}
}

// ControlHandler serves the link's control endpoint: POST /partition, POST
// /heal, GET /state (LinkStatus as JSON).
func (l *Link) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	reply := func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(l.State())
	}
	mux.HandleFunc("POST /partition", func(w http.ResponseWriter, _ *http.Request) { l.Partition(); reply(w) })
	mux.HandleFunc("POST /heal", func(w http.ResponseWriter, _ *http.Request) { l.Heal(); reply(w) })
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, _ *http.Request) { reply(w) })
	return mux
}

// RunPeerLink runs a healed link from listen to upstream with its control
// endpoint on control, all loopback addresses, until ctx ends; `spillway-lab
// peer-link` is this function, started by the lab as a cluster component.
func RunPeerLink(ctx context.Context, listen, upstream, control string) error {
	for flag, addr := range map[string]string{"--listen": listen, "--upstream": upstream, "--control": control} {
		host, _, err := net.SplitHostPort(addr)
		if err != nil || host != "127.0.0.1" {
			return fmt.Errorf("peer-link %s %q: the lab links loopback addresses only (127.0.0.1:PORT)", flag, addr)
		}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	cl, err := net.Listen("tcp", control)
	if err != nil {
		_ = ln.Close()
		return err
	}
	l := NewLink(upstream)
	srv := &http.Server{Handler: l.ControlHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	go func() { _ = srv.Serve(cl) }()
	fmt.Printf("peer-link: %s → %s, control on http://%s\n", listen, upstream, control)
	return l.Serve(ctx, ln)
}
