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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
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

// TestProviderIsLentOnlyByAnEnsuredSession: unpeering uses the session's
// client and tenant namespace, which exist only once the peering was ensured
// and until its session stops.
func TestProviderIsLentOnlyByAnEnsuredSession(t *testing.T) {
	g := NewWithT(t)
	rt, _ := New(Options{})
	_, _, ok := rt.Provider("milan")
	g.Expect(ok).To(BeFalse(), "no session")
	cs, err := rt.Connect("milan", &rest.Config{Host: "https://milan:6443"}, "fp")
	g.Expect(err).NotTo(HaveOccurred())
	_, _, ok = rt.Provider("milan")
	g.Expect(ok).To(BeFalse(), "connected, never ensured: the tenant namespace is unknown")
	rt.mu.Lock()
	rt.sessions["milan"].tenant = "liqo-tenant-rome" // what a successful Ensure records
	rt.mu.Unlock()
	got, tenant, ok := rt.Provider("milan")
	g.Expect(ok).To(BeTrue())
	g.Expect(got).To(BeIdenticalTo(cs))
	g.Expect(tenant).To(Equal("liqo-tenant-rome"))
	rt.Stop("milan")
	_, _, ok = rt.Provider("milan")
	g.Expect(ok).To(BeFalse(), "stopped")
}

func TestSessionsAreCountedInTheManagersRegistry(t *testing.T) {
	g := NewWithT(t)
	reg := prometheus.NewRegistry()
	m, err := NewMetrics(reg)
	g.Expect(err).NotTo(HaveOccurred())
	n, err := testutil.GatherAndCount(reg, "spillway_peering_sessions", "spillway_peering_sessions_stopped_total", "spillway_peering_workers")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(n).To(Equal(2+4), "the workers gauge shows every kind, at 0, from the start")
	_, err = NewMetrics(reg)
	g.Expect(err).To(HaveOccurred(), "two sets of series in one registry would double-count")
	// Runtimes come and go (one per lease held); the series are the process's.
	for range 2 {
		rt, err := New(Options{Metrics: m})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rt.metrics).To(BeIdenticalTo(m))
	}
	g.Expect(testutil.ToFloat64(m.sessions)).To(BeZero())
}

func TestWorkersAreCountedUntilTheyReturn(t *testing.T) {
	g := NewWithT(t)
	m, _ := NewMetrics(nil)
	release := make(chan struct{})
	for range 3 {
		m.Go(WorkerRetryPending, func() { <-release })
	}
	m.Go(WorkerNodeProbe, func() { <-release })
	g.Expect(testutil.ToFloat64(m.workers.WithLabelValues(WorkerRetryPending))).To(Equal(3.0))
	g.Expect(testutil.ToFloat64(m.workers.WithLabelValues(WorkerNodeProbe))).To(Equal(1.0))
	close(release)
	g.Eventually(func() float64 {
		return testutil.ToFloat64(m.workers.WithLabelValues(WorkerRetryPending)) + testutil.ToFloat64(m.workers.WithLabelValues(WorkerNodeProbe))
	}).Should(BeZero())
}

func TestOrphanSessionsAreThoseWithoutAForeignCluster(t *testing.T) {
	sessions := map[string]*Session{"milan": {}, "paris": {}, "gone": {}, "also-gone": {}}
	fcs := []discoveryv1alpha1.ForeignCluster{{ObjectMeta: metav1.ObjectMeta{Name: "milan"}}, {ObjectMeta: metav1.ObjectMeta{Name: "paris"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "london"}}}
	NewWithT(t).Expect(orphanSessions(sessions, fcs)).To(Equal([]string{"also-gone", "gone"}))
	NewWithT(t).Expect(orphanSessions(sessions, nil)).To(HaveLen(4))
}

// TestSweepStopsTheSessionOfADeletedForeignCluster: a session whose
// ForeignCluster is gone (its finalizer removed by hand) is stopped and
// forgotten; the others stay.
func TestSweepStopsTheSessionOfADeletedForeignCluster(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	g.Expect(discoveryv1alpha1.AddToScheme(s)).To(Succeed())
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(&discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: "milan"}}).Build()
	rt, _ := New(Options{LocalClient: c})
	for _, name := range []string{"milan", "paris"} {
		_, err := rt.Connect(name, &rest.Config{Host: "https://" + name + ":6443"}, "fp")
		g.Expect(err).NotTo(HaveOccurred())
	}
	g.Expect(rt.Sweep(context.Background())).To(Succeed())
	rt.mu.Lock()
	defer rt.mu.Unlock()
	g.Expect(rt.sessions).To(HaveKey("milan"))
	g.Expect(rt.sessions).NotTo(HaveKey("paris"))
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

// TestAStoppedSessionStartsNothing: an Ensure that took the session from the
// map just before Stop removed it must not start a node nothing could stop.
func TestAStoppedSessionStartsNothing(t *testing.T) {
	g := NewWithT(t)
	rt, _ := New(Options{})
	_, err := rt.Connect("milan", &rest.Config{Host: "https://milan:6443"}, "fp")
	g.Expect(err).NotTo(HaveOccurred())
	rt.mu.Lock()
	held := rt.sessions["milan"] // what Ensure holds once it released rt.mu
	rt.mu.Unlock()
	rt.Stop("milan")
	_, err = held.ensure(context.Background(), context.Background(), Peer{Name: "milan"})
	g.Expect(err).To(MatchError(ContainSubstring("session was stopped")))
	g.Expect(held.running()).To(BeFalse())
	g.Expect(rt.Sessions()).To(BeZero())
}
