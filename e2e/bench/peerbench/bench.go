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

package peerbench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// PortBase is the benchmark lab's loopback port block (podbench 18500,
// reflectbench 18640, storagebench 19100).
const PortBase = 19200

// StandIns says what is real and what stands in, for the output and the docs.
const StandIns = "providers are stand-ins: each is a namespace on milan's real API server with a ServiceAccount " +
	"whose token is rome's identity, the RBAC a provider grants, and the offer ConfigMap a provider publishes, under a " +
	"cluster ID of its own; rome peers with each through a real ForeignCluster and credentials Secret. Real API server, " +
	"real token, real RBAC; only milan's ResourceOffer controller is not the one writing the offer. All stand-ins share " +
	"one API server, so this measures the consumer's cost per peering, not a provider's"

// Timing of a step.
const (
	// readyTimeout bounds commit → Ready for a step, plus perPeering for each
	// peering it adds.
	readyTimeout = 3 * time.Minute
	perPeering   = 2 * time.Second
	// settleInterval, settleReads and settleTimeout: the manager is settled
	// when settleReads goroutine counts settleInterval apart agree.
	settleInterval = 2 * time.Second
	settleReads    = 4
	settleTimeout  = 3 * time.Minute
)

// Processes whose CPU the tables show; the JSON keeps every lab process.
var (
	RomeManager   = "rome/" + framework.ManagerProcess
	RomeAPIServer = "rome/" + lab.APIServer
	MilanAPI      = "milan/" + lab.APIServer
)

// Bench is rome, peered with milan from clusters/, ready to peer with
// stand-in providers hosted on milan.
type Bench struct {
	Lab         *lab.Lab
	Rome, Milan *lab.Cluster
	standIns    *framework.StandInProviders
	ready       *readiness
	// stopWatch ends the readiness watch, before the lab stops.
	stopWatch context.CancelFunc
	pid       int
	// peers are the stand-in peerings made so far, in order.
	peers []string
	log   io.Writer
}

// Setup starts the lab in <root>/.lab-e2e/bench-peers, peers rome with milan
// as the other benchmarks do (so rome's manager runs as usual, with one real
// peering), and starts watching rome's Nodes and ForeignClusters.
func Setup(ctx context.Context, root string, log io.Writer) (*Bench, error) {
	if _, err := framework.Binaries(); err != nil {
		return nil, err
	}
	l, err := lab.StartForSuite(ctx, "bench-peers", PortBase, lab.MustSpecs("rome milan:nodes=1"), false)
	if err != nil {
		return nil, err
	}
	b := &Bench{Lab: l, log: log, ready: newReadiness()}
	b.Rome, _ = l.Cluster("rome")
	b.Milan, _ = l.Cluster("milan")
	if err := framework.QuickStart(ctx, root, b.Rome, b.Milan, framework.PeeringOnly); err != nil {
		return b, fmt.Errorf("peering rome with milan: %w", err)
	}
	romeID, err := framework.IdentityOf(filepath.Join(root, "clusters/rome/install"))
	if err != nil {
		return b, err
	}
	if b.standIns, err = framework.NewStandInProviders(b.Rome, romeID, b.Milan, map[string]string{"spillway.liqo.io/bench": "peers"}); err != nil {
		return b, err
	}
	if b.pid, err = b.Rome.PID(framework.ManagerProcess); err != nil {
		return b, err
	}
	cfg, err := b.Rome.RESTConfig()
	if err != nil {
		return b, err
	}
	var wctx context.Context
	wctx, b.stopWatch = context.WithCancel(ctx)
	return b, b.ready.watch(wctx, cfg)
}

// State is rome's manager once settled: its footprint, and the CPU the lab
// used per second over the settle window, when the manager only keeps its
// peerings alive.
type State struct {
	Footprint framework.Footprint `json:"footprint"`
	// Settled is false when the goroutine count did not hold still before
	// the deadline; the footprint is then the last read.
	Settled bool `json:"settled"`
	// IdleCPU is CPU seconds per second over the last settleReads reads.
	IdleCPU map[string]float64 `json:"idleCPUPerSecond"`
}

// Settle polls rome's manager every settleInterval until settleReads
// goroutine counts in a row are within 1 % of each other (the probes of many
// peerings start and end goroutines all the time), or settleTimeout.
func (b *Bench) Settle(ctx context.Context) (State, error) {
	type read struct {
		f   framework.Footprint
		cpu podbench.CPU
		at  time.Time
	}
	var reads []read
	deadline := time.Now().Add(settleTimeout)
	t := time.NewTicker(settleInterval)
	defer t.Stop()
	for {
		f, err := framework.ReadFootprint(ctx, b.Rome, b.pid)
		if err != nil {
			return State{}, err
		}
		cpu, err := podbench.ReadCPU(b.Rome, b.Milan)
		if err != nil {
			return State{}, err
		}
		reads = append(reads, read{f, cpu, time.Now()})
		if len(reads) > settleReads {
			reads = reads[1:]
		}
		counts := make([]int, 0, len(reads))
		for _, r := range reads {
			counts = append(counts, r.f.Goroutines)
		}
		stable := len(reads) == settleReads && stableCounts(counts)
		if stable || time.Now().After(deadline) {
			first, last := reads[0], reads[len(reads)-1]
			return State{Footprint: last.f, Settled: stable, IdleCPU: perSecond(last.cpu.Since(first.cpu), last.at.Sub(first.at))}, nil
		}
		select {
		case <-ctx.Done():
			return State{}, ctx.Err()
		case <-t.C:
		}
	}
}

// stableCounts reports whether the counts are within 1 % (at least 2) of
// each other.
func stableCounts(counts []int) bool {
	if len(counts) == 0 {
		return false
	}
	lo, hi := slices.Min(counts), slices.Max(counts)
	return hi-lo <= max(2, hi/100)
}

func perSecond(c podbench.CPU, over time.Duration) map[string]float64 {
	out := map[string]float64{}
	if over <= 0 {
		return out
	}
	for k, v := range c {
		out[k] = v.Seconds() / over.Seconds()
	}
	return out
}

// Step adds stand-in peerings until there are n: it prepares the stand-ins
// (not timed: a provider's and `spillway peer`'s work), creates their
// ForeignClusters at once as Flux applies a commit, times each to Ready, and
// settles. A step whose peerings are not all Ready in time is returned with
// them counted as unfinished, and an error.
func (b *Bench) Step(ctx context.Context, n int) (Step, error) {
	added := make([]string, 0, n-len(b.peers))
	for i := len(b.peers); i < n; i++ {
		added = append(added, fmt.Sprintf("peer-%03d", i))
	}
	s := Step{Peers: n, Added: len(added)}
	fmt.Fprintf(b.log, "bench: preparing %d stand-in providers\n", len(added))
	for _, name := range added {
		if err := b.standIns.Prepare(ctx, name); err != nil {
			return s, fmt.Errorf("preparing stand-in provider %s: %w", name, err)
		}
	}
	before, err := podbench.ReadCPU(b.Rome, b.Milan)
	if err != nil {
		return s, err
	}
	start := time.Now()
	for _, name := range added {
		b.ready.commit(name, time.Now())
		if err := b.standIns.Peer(ctx, name); err != nil {
			return s, fmt.Errorf("creating the ForeignCluster of %s: %w", name, err)
		}
	}
	b.peers = append(b.peers, added...)
	wctx, cancel := context.WithTimeout(ctx, readyTimeout+time.Duration(len(added))*perPeering)
	defer cancel()
	waitErr := framework.Poll(wctx, func(context.Context) error {
		if p := b.ready.latencies(added).Pending; len(p) > 0 {
			return fmt.Errorf("%d of %d peerings not Ready (virtual node and ForeignCluster), first %s", len(p), len(added), p[0])
		}
		return nil
	})
	l := b.ready.latencies(added)
	s.Ready = podbench.Sample{Latencies: l.Both, Unfinished: len(l.Pending)}
	s.NodeReady, s.ForeignClusterReady = l.Node, l.ForeignCluster
	if !l.Last.IsZero() {
		s.Ready.Wall = l.Last.Sub(start)
	}
	if waitErr != nil {
		return s, fmt.Errorf("step to %d peerings: %w", n, waitErr)
	}
	if s.State, err = b.Settle(ctx); err != nil {
		return s, err
	}
	after, err := podbench.ReadCPU(b.Rome, b.Milan)
	if err != nil {
		return s, err
	}
	s.CPU = after.Since(before)
	fmt.Fprintf(b.log, "bench: %d peerings Ready, wall %s; rome's manager: %s\n", n, s.Ready.Wall.Round(time.Millisecond), s.State.Footprint)
	return s, nil
}

// Teardown deletes every stand-in peering at once, times until rome has let
// go of all of them, removes the stand-ins and settles.
func (b *Bench) Teardown(ctx context.Context) (Teardown, error) {
	var t Teardown
	before, err := podbench.ReadCPU(b.Rome, b.Milan)
	if err != nil {
		return t, err
	}
	start := time.Now()
	if err := b.standIns.Unpeer(ctx, b.peers); err != nil {
		return t, err
	}
	wctx, cancel := context.WithTimeout(ctx, readyTimeout+time.Duration(len(b.peers))*perPeering)
	defer cancel()
	if err := framework.Poll(wctx, func(ctx context.Context) error { return b.standIns.Gone(ctx, b.peers) }); err != nil {
		return t, fmt.Errorf("deleting %d peerings: %w", len(b.peers), err)
	}
	t.Peers, t.Wall = len(b.peers), time.Since(start)
	if err := b.standIns.Remove(ctx, b.peers); err != nil {
		return t, err
	}
	b.peers = slices.Delete(b.peers, 0, len(b.peers))
	if t.State, err = b.Settle(ctx); err != nil {
		return t, err
	}
	after, err := podbench.ReadCPU(b.Rome, b.Milan)
	if err != nil {
		return t, err
	}
	t.CPU = after.Since(before)
	fmt.Fprintf(b.log, "bench: all peerings deleted in %s; rome's manager: %s\n", t.Wall.Round(time.Millisecond), t.State.Footprint)
	return t, nil
}

// Down ends the watch, then stops the lab: a watch that outlived its API
// server would only log the connection's end.
func (b *Bench) Down() error {
	if b == nil || b.Lab == nil {
		return nil
	}
	if b.stopWatch != nil {
		b.stopWatch()
	}
	return lab.TearDownSuite(b.Lab)
}
