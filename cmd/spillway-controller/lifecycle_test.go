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

package main

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

func TestTheWaitForTheAPIServerBacksOffToAFewSeconds(t *testing.T) {
	g := NewWithT(t)
	var delays []time.Duration
	for d := apiWaitInitial; len(delays) < 6; d = nextDelay(d) {
		delays = append(delays, d)
	}
	g.Expect(delays).To(Equal([]time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second, 4 * time.Second}),
		"capped well under the 30 s the manager has to be back at work")
}

func TestWaitForTheAPIServerReturnsWhenItAnswers(t *testing.T) {
	g := NewWithT(t)
	var calls atomic.Int32
	ping := func(context.Context) error {
		if calls.Add(1) < 3 {
			return errors.New("connection refused")
		}
		return nil
	}
	g.Expect(waitForAPIServer(context.Background(), ping)).To(Succeed())
	g.Expect(calls.Load()).To(Equal(int32(3)))

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	g.Expect(waitForAPIServer(ctx, func(context.Context) error { return errors.New("down") })).To(MatchError(context.DeadlineExceeded),
		"it never gives up on its own: only the process stopping ends the wait")
}

func TestProbesSayWhatStateTheManagerIsIn(t *testing.T) {
	g := NewWithT(t)
	lc, err := newLifecycle(prometheus.NewRegistry())
	g.Expect(err).NotTo(HaveOccurred())
	srv := httptest.NewServer(lc.probeHandler())
	defer srv.Close()
	get := func(path string) (int, string) {
		resp, err := http.Get(srv.URL + path)
		g.Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		return resp.StatusCode, string(buf[:n])
	}
	for _, tc := range []struct {
		state string
		ready bool
	}{{stateWaiting, false}, {stateStarting, false}, {stateStandby, true}, {stateLeading, true}, {stateStopping, false}} {
		lc.set(tc.state)
		code, body := get("/healthz")
		g.Expect(code).To(Equal(http.StatusOK), "liveness holds in %s: a restart would not bring the API server back", tc.state)
		g.Expect(body).To(ContainSubstring(tc.state))
		code, body = get("/readyz")
		g.Expect(body).To(ContainSubstring(tc.state))
		if tc.ready {
			g.Expect(code).To(Equal(http.StatusOK), tc.state)
		} else {
			g.Expect(code).To(Equal(http.StatusServiceUnavailable), tc.state)
		}
		g.Expect(testutil.ToFloat64(lc.stateGauge.WithLabelValues(tc.state))).To(Equal(1.0))
	}
	g.Expect(testutil.ToFloat64(lc.stateGauge.WithLabelValues(stateLeading))).To(BeZero(), "one state at a time")
}

func TestTheNextGenerationWaitsForTheTrackedRunnables(t *testing.T) {
	g := NewWithT(t)
	w := &stopWaiter{}
	release, running := make(chan struct{}), make(chan struct{})
	slow := w.track(runnableFunc(func(context.Context) error { close(running); <-release; return nil }))
	go func() { _ = slow.Start(context.Background()) }()
	<-running
	g.Expect(w.wait(10*time.Millisecond)).To(BeFalse(), "still running")
	close(release)
	g.Expect(w.wait(time.Second)).To(BeTrue())
	started := false
	late := w.track(runnableFunc(func(context.Context) error { started = true; return nil }))
	g.Expect(late.Start(context.Background())).To(Succeed())
	g.Expect(started).To(BeFalse(), "nothing starts in a generation being torn down")
	g.Expect(slow.(manager.LeaderElectionRunnable).NeedLeaderElection()).To(BeTrue())
}

// TestALostLeaseRebuildsTheManagerInProcess runs supervise with real
// controller-runtime managers whose runnable fails as a lost lease does:
// the process builds a second manager instead of returning.
func TestALostLeaseRebuildsTheManagerInProcess(t *testing.T) {
	g := NewWithT(t)
	lc, err := newLifecycle(prometheus.NewRegistry())
	g.Expect(err).NotTo(HaveOccurred())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var built atomic.Int32
	build := func(context.Context) (*generation, error) {
		n := built.Add(1)
		mgr, err := ctrl.NewManager(&rest.Config{Host: "http://127.0.0.1:1"}, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
		if err != nil {
			return nil, err
		}
		err = mgr.Add(runnableFunc(func(ctx context.Context) error {
			if n == 1 {
				return errors.New("leader election lost")
			}
			cancel() // the second generation runs: stop the process
			<-ctx.Done()
			return nil
		}))
		return &generation{mgr: mgr, stop: &stopWaiter{}}, err
	}
	ok := func(context.Context) error { return nil }
	g.Expect(supervise(ctx, lc, ok, build)).To(Succeed())
	g.Expect(built.Load()).To(Equal(int32(2)))
	g.Expect(testutil.ToFloat64(lc.lost)).To(Equal(1.0))
	g.Expect(testutil.ToFloat64(lc.generations)).To(Equal(2.0))
}

func TestAFailureWithTheAPIServerUpIsReturned(t *testing.T) {
	g := NewWithT(t)
	lc, _ := newLifecycle(prometheus.NewRegistry())
	broken := errors.New("setting up the ForeignCluster controller: no kind")
	build := func(context.Context) (*generation, error) { return nil, broken }
	g.Expect(supervise(context.Background(), lc, func(context.Context) error { return nil }, build)).To(MatchError(broken))
}

type runnableFunc func(context.Context) error

func (f runnableFunc) Start(ctx context.Context) error { return f(ctx) }
