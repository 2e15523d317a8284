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
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
)

// The manager's lifecycle states, as /healthz, /readyz and
// spillway_manager_state report them.
const (
	// stateWaiting: the API server does not answer; nothing runs.
	stateWaiting = "WaitingForAPIServer"
	// stateStarting: a generation is being built and its caches filled.
	stateStarting = "Starting"
	// stateStandby: caches synced, webhooks served, another replica leads.
	stateStandby = "Standby"
	// stateLeading: this replica reconciles and runs the peerings.
	stateLeading = "Leading"
	// stateStopping: a generation ended (lease lost, API gone) and is being
	// torn down before the next.
	stateStopping = "Stopping"
)

var setupLog = ctrl.Log.WithName("lifecycle")

var allStates = []string{stateWaiting, stateStarting, stateStandby, stateLeading, stateStopping}

// Backoff of the wait for the API server: short enough that the manager is
// at work again seconds after the API server returns, long enough not to
// hammer one that is starting.
const (
	apiWaitInitial = 500 * time.Millisecond
	apiWaitMax     = 4 * time.Second
	// apiPingTimeout bounds one readiness check of the API server.
	apiPingTimeout = 3 * time.Second
	// generationStopGrace bounds how long a finished generation's servers
	// and peerings may take to stop before the next one binds their ports.
	generationStopGrace = 30 * time.Second
)

// lifecycle is the manager process's state across generations: one
// generation is one controller-runtime manager with fresh caches, built when
// the API server answers and torn down when it loses its lease or fails.
type lifecycle struct {
	mu         sync.Mutex
	state      string
	since      time.Time
	generation int

	stateGauge  *prometheus.GaugeVec
	generations prometheus.Counter
	lost        prometheus.Counter
}

func newLifecycle(reg prometheus.Registerer) (*lifecycle, error) {
	lc := &lifecycle{
		stateGauge: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "spillway_manager_state",
			Help: "1 for the manager's current lifecycle state (WaitingForAPIServer, Starting, Standby, Leading, Stopping)."}, []string{"state"}),
		generations: prometheus.NewCounter(prometheus.CounterOpts{Name: "spillway_manager_generations_total",
			Help: "Controller managers started by this process: 1, plus one per recovery from a lost lease or an API server outage."}),
		lost: prometheus.NewCounter(prometheus.CounterOpts{Name: "spillway_manager_leadership_lost_total",
			Help: "Times this process lost its leader lease and rebuilt its manager instead of exiting."}),
	}
	for _, c := range []prometheus.Collector{lc.stateGauge, lc.generations, lc.lost} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	lc.set(stateWaiting)
	return lc, nil
}

func (lc *lifecycle) set(state string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if lc.state == state {
		return
	}
	lc.state, lc.since = state, time.Now()
	for _, s := range allStates {
		v := 0.0
		if s == state {
			v = 1
		}
		lc.stateGauge.WithLabelValues(s).Set(v)
	}
}

func (lc *lifecycle) describe() (ready bool, text string) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	ready = lc.state == stateStandby || lc.state == stateLeading
	return ready, fmt.Sprintf("%s for %s (generation %d)", lc.state, time.Since(lc.since).Round(time.Second), lc.generation)
}

// probeHandler serves /healthz and /readyz from the lifecycle, across
// generations. Liveness holds through an outage, which a restart would not
// shorten; readiness (the webhook Service's endpoints) needs a generation
// that serves webhooks from synced caches.
func (lc *lifecycle) probeHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		_, text := lc.describe()
		fmt.Fprintf(w, "ok: %s\n", text)
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		ready, text := lc.describe()
		if !ready {
			http.Error(w, "not ready: "+text, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "ok: %s\n", text)
	})
	return mux
}

// serveProbes serves the probe endpoints on addr until ctx ends.
func serveProbes(ctx context.Context, addr string, lc *lifecycle) (<-chan error, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("health probes on %s (--health-probe-bind-address): %w", addr, err)
	}
	srv := &http.Server{Handler: lc.probeHandler(), ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- err
		}
	}()
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	return errc, nil
}

// generation is one manager built by buildGeneration, and the runnables
// whose end the next generation must wait for.
type generation struct {
	mgr  manager.Manager
	stop *stopWaiter
}

// supervise runs generations until ctx ends: wait for the API server (with a
// bounded backoff, never exiting), build a manager, run it; on a lost lease
// or an API server gone, tear it down and start over in the same process.
// Any other failure is returned: it is a bug or a misconfiguration that a
// restart, not a retry, should surface.
func supervise(ctx context.Context, lc *lifecycle, ping func(context.Context) error, build func(context.Context) (*generation, error)) error {
	log := setupLog
	for {
		lc.set(stateWaiting)
		if err := waitForAPIServer(ctx, ping); err != nil {
			return nil // ctx ended
		}
		lc.set(stateStarting)
		err := runGeneration(ctx, lc, build)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case isLeadershipLost(err):
			lc.lost.Inc()
			log.Info("lost the leader lease: the peerings and controllers stopped, remote pods are untouched; rebuilding the manager with fresh caches")
		case ping(ctx) != nil:
			log.Info("the API server stopped answering: rebuilding the manager once it is back", "error", err)
		case err == nil:
			return nil
		default:
			return err
		}
	}
}

// runGeneration builds and runs one manager, and returns once its servers
// and peerings have stopped.
func runGeneration(ctx context.Context, lc *lifecycle, build func(context.Context) (*generation, error)) error {
	genCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	g, err := build(genCtx)
	if err != nil {
		return fmt.Errorf("building the manager: %w", err)
	}
	lc.mu.Lock()
	lc.generation++
	lc.mu.Unlock()
	lc.generations.Inc()
	// Marks the lifecycle as the manager gets there: runnables that are not
	// leader-elected start once caches are synced, the others once elected.
	if err := g.mgr.Add(stateMarker{lc: lc, state: stateStandby, leader: false}); err != nil {
		return err
	}
	if err := g.mgr.Add(stateMarker{lc: lc, state: stateLeading, leader: true}); err != nil {
		return err
	}
	err = g.mgr.Start(genCtx)
	lc.set(stateStopping)
	cancel()
	// controller-runtime skips its graceful shutdown when the lease is lost;
	// the next generation binds the same ports and runs the same virtual
	// nodes, so wait for what this one started.
	if !g.stop.wait(generationStopGrace) {
		return errors.Join(err, fmt.Errorf("the manager's servers and peerings did not stop within %s", generationStopGrace))
	}
	return err
}

// isLeadershipLost recognises controller-runtime's error for a lost lease,
// which it returns untyped.
func isLeadershipLost(err error) bool {
	return err != nil && strings.Contains(err.Error(), "leader election lost")
}

// waitForAPIServer returns once ping succeeds, retrying with a bounded
// backoff, or ctx's error.
func waitForAPIServer(ctx context.Context, ping func(context.Context) error) error {
	delay := apiWaitInitial
	for attempt := 0; ; attempt++ {
		pctx, cancel := context.WithTimeout(ctx, apiPingTimeout)
		err := ping(pctx)
		cancel()
		if err == nil {
			return nil
		}
		if attempt == 0 || attempt%15 == 0 {
			setupLog.Info("waiting for the API server", "error", err.Error())
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		delay = nextDelay(delay)
	}
}

// nextDelay doubles d up to apiWaitMax.
func nextDelay(d time.Duration) time.Duration {
	return min(2*d, apiWaitMax)
}

// stateMarker is a runnable whose start means the manager reached state.
type stateMarker struct {
	lc     *lifecycle
	state  string
	leader bool
}

func (m stateMarker) NeedLeaderElection() bool { return m.leader }

func (m stateMarker) Start(ctx context.Context) error {
	m.lc.set(m.state)
	<-ctx.Done()
	return nil
}

// stopWaiter counts the runnables of a generation that are running, so that
// the next generation starts only once they have returned.
type stopWaiter struct {
	mu      sync.Mutex
	closing bool
	wg      sync.WaitGroup
}

// enter reports whether a runnable may start: not once the generation is
// being torn down.
func (w *stopWaiter) enter() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closing {
		return false
	}
	w.wg.Add(1)
	return true
}

// wait closes the generation to new runnables and waits for the running
// ones, at most d; it reports whether they all returned.
func (w *stopWaiter) wait(d time.Duration) bool {
	w.mu.Lock()
	w.closing = true
	w.mu.Unlock()
	done := make(chan struct{})
	go func() {
		w.wg.Wait()
		close(done)
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}

// track wraps a runnable so that w waits for it, keeping whether it needs
// the lease.
func (w *stopWaiter) track(r manager.Runnable) manager.Runnable {
	return trackedRunnable{r: r, w: w}
}

type trackedRunnable struct {
	r manager.Runnable
	w *stopWaiter
}

func (t trackedRunnable) Start(ctx context.Context) error {
	if !t.w.enter() {
		return nil
	}
	defer t.w.wg.Done()
	return t.r.Start(ctx)
}

func (t trackedRunnable) NeedLeaderElection() bool {
	if l, ok := t.r.(manager.LeaderElectionRunnable); ok {
		return l.NeedLeaderElection()
	}
	return true
}

// trackedWebhookServer is a webhook server whose end w waits for: the next
// generation listens on the same port.
type trackedWebhookServer struct {
	webhook.Server
	w *stopWaiter
}

func (s trackedWebhookServer) Start(ctx context.Context) error {
	if !s.w.enter() {
		return nil
	}
	defer s.w.wg.Done()
	return s.Server.Start(ctx)
}
