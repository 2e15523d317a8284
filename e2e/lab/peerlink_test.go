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
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

// echoServer answers every line with the same line, and counts connections.
func echoServer(t *testing.T) (string, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			go func() {
				defer c.Close()
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String(), &accepted
}

func startLink(t *testing.T, upstream string) (*Link, string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	l := NewLink(upstream)
	go func() { _ = l.Serve(ctx, ln) }()
	return l, ln.Addr().String()
}

// exchange writes a line and reads the answer within wait.
func exchange(c net.Conn, r *bufio.Reader, line string, wait time.Duration) (string, error) {
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	got, err := r.ReadString('\n')
	return strings.TrimSuffix(got, "\n"), err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func TestLinkHoldsTrafficWhilePartitionedAndDeliversItOnHeal(t *testing.T) {
	g := NewWithT(t)
	upstream, accepted := echoServer(t)
	l, addr := startLink(t, upstream)

	c, err := net.Dial("tcp", addr)
	g.Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	r := bufio.NewReader(c)
	g.Expect(exchange(c, r, "before", 2*time.Second)).To(Equal("before"))

	l.Partition()
	g.Expect(l.State().Partitioned).To(BeTrue())
	_, err = exchange(c, r, "during", 300*time.Millisecond)
	g.Expect(isTimeout(err)).To(BeTrue(), "a partitioned link times out, it does not refuse or reset: %v", err)

	// A new connection is accepted but never answered, and nothing is dialled.
	dialled := accepted.Load()
	fresh, err := net.Dial("tcp", addr)
	g.Expect(err).NotTo(HaveOccurred())
	defer fresh.Close()
	fr := bufio.NewReader(fresh)
	_, err = exchange(fresh, fr, "new", 300*time.Millisecond)
	g.Expect(isTimeout(err)).To(BeTrue(), "got %v", err)
	g.Expect(accepted.Load()).To(Equal(dialled), "the link dialled the API server during a partition")
	g.Eventually(func() int64 { return l.State().Held }).Should(BeEquivalentTo(1))

	l.Heal()
	g.Expect(l.State().Partitioned).To(BeFalse())
	// What was held arrives, in order, on both connections.
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	got, err := r.ReadString('\n')
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal("during\n"))
	_ = fresh.SetReadDeadline(time.Now().Add(2 * time.Second))
	got, err = fr.ReadString('\n')
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal("new\n"))
	g.Expect(exchange(c, r, "after", 2*time.Second)).To(Equal("after"))
}

func TestLinkPartitionAndHealAreIdempotent(t *testing.T) {
	g := NewWithT(t)
	l := NewLink("127.0.0.1:1")
	l.Heal()
	g.Expect(l.State().Partitioned).To(BeFalse())
	l.Partition()
	since := l.State().Since
	l.Partition()
	g.Expect(l.State().Since).To(Equal(since), "a second Partition restarted the partition")
	l.Heal()
	l.Heal()
	g.Expect(l.State()).To(Equal(LinkStatus{}))
}

func TestLinkClosesConnectionsWhenTheAPIServerIsDown(t *testing.T) {
	g := NewWithT(t)
	// A port nothing listens on: take one and free it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	g.Expect(err).NotTo(HaveOccurred())
	down := ln.Addr().String()
	g.Expect(ln.Close()).To(Succeed())
	_, addr := startLink(t, down)
	c, err := net.Dial("tcp", addr)
	g.Expect(err).NotTo(HaveOccurred())
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = c.Read(make([]byte, 1))
	g.Expect(isTimeout(err)).To(BeFalse(), "a stopped API server behind a healed link should close the connection, got %v", err)
	g.Expect(err).To(HaveOccurred())
}

func TestLinkControlEndpoint(t *testing.T) {
	g := NewWithT(t)
	l := NewLink("127.0.0.1:1")
	srv := httptest.NewServer(l.ControlHandler())
	defer srv.Close()
	post := func(path string) string {
		resp, err := srv.Client().Post(srv.URL+path, "", nil)
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		g.Expect(resp.StatusCode).To(Equal(200))
		return string(body)
	}
	g.Expect(post("/partition")).To(ContainSubstring(`"partitioned":true`))
	g.Expect(l.State().Partitioned).To(BeTrue())
	g.Expect(post("/heal")).To(ContainSubstring(`"partitioned":false`))
	resp, err := srv.Client().Get(srv.URL + "/partition")
	g.Expect(err).NotTo(HaveOccurred())
	resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(405), "partitioning takes a POST")
}

func TestRunPeerLinkRefusesAddressesOffLoopback(t *testing.T) {
	g := NewWithT(t)
	err := RunPeerLink(context.Background(), "0.0.0.0:7000", "127.0.0.1:6443", "127.0.0.1:7001")
	g.Expect(err).To(MatchError(And(ContainSubstring("--listen"), ContainSubstring("loopback"))))
}
