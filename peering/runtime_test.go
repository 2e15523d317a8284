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

package peering

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/rest"
)

func TestConnectRebuildsTheClientOnlyWhenTheServerChanges(t *testing.T) {
	g := NewWithT(t)
	rt, err := New(Options{})
	g.Expect(err).NotTo(HaveOccurred())
	cfg := &rest.Config{Host: "https://milan:6443", BearerToken: "t1"}
	a, err := rt.Connect("milan", cfg, "fp1")
	g.Expect(err).NotTo(HaveOccurred())
	b, _ := rt.Connect("milan", cfg, "fp1")
	g.Expect(b).To(BeIdenticalTo(a))
	c, _ := rt.Connect("milan", &rest.Config{Host: "https://milan:6443", BearerToken: "t2"}, "fp2")
	g.Expect(c).To(BeIdenticalTo(a), "a new token alone is swapped under the same client")
	d, _ := rt.Connect("milan", &rest.Config{Host: "https://milan-2:6443", BearerToken: "t2"}, "fp3")
	g.Expect(d).NotTo(BeIdenticalTo(a), "a new server needs new clients")
}

func TestSessionsAreCountedInTheManagersRegistry(t *testing.T) {
	g := NewWithT(t)
	reg := prometheus.NewRegistry()
	rt, err := New(Options{Metrics: reg})
	g.Expect(err).NotTo(HaveOccurred())
	n, err := testutil.GatherAndCount(reg, "spillway_peering_sessions", "spillway_peering_sessions_stopped_total")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(n).To(Equal(2))
	_, err = New(Options{Metrics: reg})
	g.Expect(err).To(HaveOccurred(), "two runtimes in one registry would double-count")
	g.Expect(testutil.ToFloat64(rt.live)).To(BeZero())
}

// TestEnsureRunsOnlyWhileTheRuntimeRuns: sessions derive from the Runnable's
// context, so nothing starts before Start or after the manager stopped it.
func TestEnsureRunsOnlyWhileTheRuntimeRuns(t *testing.T) {
	g := NewWithT(t)
	rt, _ := New(Options{})
	_, _ = rt.Connect("milan", &rest.Config{Host: "https://milan:6443"}, "fp")
	early, cancelEarly := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelEarly()
	_, err := rt.Ensure(early, Peer{Name: "milan"})
	g.Expect(err).To(MatchError(context.DeadlineExceeded), "Ensure waits for Start")

	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- rt.Start(ctx) }()
	stop()
	g.Eventually(done).Should(Receive(BeNil()))
	_, err = rt.Ensure(context.Background(), Peer{Name: "milan"})
	g.Expect(err).To(MatchError(errNotRunning))
	g.Expect(rt.Sessions()).To(BeZero())
}
