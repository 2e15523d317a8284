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

package podbench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// warmUpPods go through a path before it is measured, so the first measured
// pod does not pay for cold caches, a fresh virtual kubelet's start, or a twin
// namespace's first watch.
const warmUpPods = 5

// path is where a creator creates pods.
type path struct {
	mode Mode
	cs   kubernetes.Interface
	ns   string
}

func (b *Bench) path(m Mode) path {
	switch m {
	case Offloaded:
		return path{mode: m, cs: b.romeCS, ns: OffloadedNamespace}
	case TwoHops:
		return path{mode: m, cs: b.romeCS, ns: TwoHopsNamespace}
	case Local:
		return path{mode: m, cs: b.romeCS, ns: LocalNamespace}
	}
	return path{mode: m, cs: b.milanCS, ns: VanillaNamespace}
}

func (b *Bench) creator(cs kubernetes.Interface, timeout time.Duration) Creator {
	return Creator{Client: cs, QPS: b.Config.CreatorQPS, Workers: b.Config.CreatorWorkers, Timeout: timeout}
}

// RunBatch measures n pods vanilla, then with the local reference n pods in
// rome on its own nodes, then n pods offloaded through a freshly restarted
// virtual kubelet (so its peak RSS is this batch's), then, with the broker,
// n pods through two hops the same way, cleaning up after each.
func (b *Bench) RunBatch(ctx context.Context, n int) (Result, error) {
	r := Result{Pods: n}
	fmt.Fprintf(b.log, "bench: %d pods, vanilla\n", n)
	m, err := b.measure(ctx, b.path(Vanilla), n, nil)
	r.Vanilla, r.VanillaCPU, r.VanillaTraffic, r.VanillaCreation = m.Sample, m.CPU, m.Traffic, m.Creation
	r.recordRest(Vanilla, m.Rest)
	if err != nil {
		return r, err
	}
	if b.Config.Local {
		var rest *RestCPU
		if r.Local, rest, err = b.runLocal(ctx, n); err != nil {
			return r, err
		}
		r.recordRest(Local, rest)
	}
	fmt.Fprintf(b.log, "bench: %d pods, offloaded (restarting rome's manager, which runs the virtual kubelet, and milan's, both with profiles)\n", n)
	pprofAddr := framework.PprofAddress(b.Rome)
	if err := framework.StartManager(ctx, b.Rome, b.romeID, framework.PprofArg(b.Rome)); err != nil {
		return r, err
	}
	// milan's manager admits and runs the ShadowPods: the first hop's
	// queueing at 10,000 pods was its CPU, which only its own profile shows.
	if err := framework.StartManager(ctx, b.Milan, b.milanID, framework.PprofArg(b.Milan)); err != nil {
		return r, err
	}
	var profiles []*profiler
	m, err = b.measure(ctx, b.path(Offloaded), n, func(before bool) error {
		if before {
			// The CPU profiles cover the creation, where the queueing is.
			for _, c := range []*lab.Cluster{b.Rome, b.Milan} {
				profiles = append(profiles, startCPUProfile(ctx, managerPprof(framework.PprofAddress(c)), c.Name+"-manager", b.creationTime(n)+5*time.Second))
			}
		} else {
			for _, p := range profiles {
				if err := p.finish(ctx, filepath.Join(b.resultsDir, "pprof"), fmt.Sprintf("%s-%d", p.name, n), b.log); err != nil {
					return err
				}
			}
		}
		return b.readManagerMemory(ctx, pprofAddr, before, &r.KubeletBefore, &r.KubeletAfter, &r.KubeletLiveHeap)
	})
	r.Offloaded, r.OffloadedCPU, r.OffloadedTraffic, r.OffloadedCreation = m.Sample, m.CPU, m.Traffic, m.Creation
	r.recordRest(Offloaded, m.Rest)
	if err != nil {
		return r, err
	}
	// measure returns once no pod of the batch is left in rome or milan. The
	// profile says what outlives the pods.
	if err := readLiveHeap(ctx, pprofAddr, &r.KubeletLiveHeap.Deleted); err != nil {
		return r, err
	}
	err = saveHeapProfile(ctx, managerPprof(pprofAddr), filepath.Join(b.resultsDir, "pprof"), fmt.Sprintf("rome-manager-%d-deleted", n), b.log)
	if err != nil || b.Genoa == nil {
		return r, err
	}
	fmt.Fprintf(b.log, "bench: %d pods, two hops through genoa (restarting rome's manager again)\n", n)
	// Only the restart: the CPU profile stays the one-hop batch's.
	if err := framework.StartManager(ctx, b.Rome, b.romeID, "--pprof-bind-address="+pprofAddr); err != nil {
		return r, err
	}
	two := &TwoHopsResult{}
	m, err = b.measure(ctx, b.path(TwoHops), n, func(before bool) error {
		return b.readKubeletMemory(before, &two.KubeletBefore, &two.KubeletAfter)
	})
	two.Sample, two.CPU, two.Traffic = m.Sample, m.CPU, m.Traffic
	r.recordRest(TwoHops, m.Rest)
	r.TwoHops = two
	return r, err
}

// readLiveHeap reads into at the heap of the manager serving pprof at addr,
// after a collection.
func readLiveHeap(ctx context.Context, addr string, at *uint64) error {
	heap, err := liveHeap(ctx, managerPprof(addr))
	if err != nil {
		return fmt.Errorf("rome's manager's live heap: %w", err)
	}
	*at = heap
	return nil
}

// readKubeletMemory reads the memory of rome's manager into before or after.
func (b *Bench) readKubeletMemory(isBefore bool, before, after *framework.Memory) error {
	pid, err := b.Rome.PID(framework.ManagerProcess)
	if err != nil {
		return err
	}
	m, err := framework.ReadMemory(pid)
	if isBefore {
		*before = m
	} else {
		*after = m
	}
	return err
}

// measured is what one path's batch measured: what the creator saw, the CPU
// every lab process used from the first create to the last pod Running,
// the API requests over the same span (Creation) and until the last pod
// was gone (Traffic: a pod's cost is its whole life), and the CPU with the
// pods at rest in between.
type measured struct {
	Sample            Sample
	CPU               CPU
	Traffic, Creation Traffic
	// Rest is the lab's CPU with the pods at rest, nil if not measured.
	Rest *RestCPU
}

// measure warms the path up, runs n pods through it and deletes them.
// probe, if set, is called just before the measured pods and once they run.
func (b *Bench) measure(ctx context.Context, p path, n int, probe func(before bool) error) (measured, error) {
	var m measured
	if err := b.warmUp(ctx, p, n); err != nil {
		return m, err
	}
	if probe != nil {
		if err := probe(true); err != nil {
			return m, err
		}
	}
	trafficBefore, err := readTraffic(ctx, b.clusters()...)
	if err != nil {
		return m, err
	}
	cpuBefore, err := ReadCPU(b.clusters()...)
	if err != nil {
		return m, err
	}
	run := fmt.Sprintf("%s-%d", p.mode, n)
	apiServers, err := b.startAPIServerProfiles(ctx, b.creationTime(n)+5*time.Second)
	if err != nil {
		return m, err
	}
	c := b.creator(p.cs, b.creationTime(n)+10*time.Minute)
	load := sampleLoad(ctx, loadSecond, b.clusters()...)
	m.Sample, err = c.Run(ctx, p.ns, map[string]string{RunLabel: run}, Pods(p.mode, run, n))
	m.Sample.Load = load.finish()
	if err != nil {
		return m, err
	}
	cpuAfter, err := ReadCPU(b.clusters()...)
	if err != nil {
		return m, err
	}
	m.CPU = cpuAfter.Since(cpuBefore)
	trafficRunning, err := readTraffic(ctx, b.clusters()...)
	if err != nil {
		return m, err
	}
	m.Creation = trafficRunning.since(trafficBefore)
	m.Sample.ClosedWatches = m.Creation.ClosedWatches
	for _, prof := range apiServers {
		if err := prof.finish(ctx, filepath.Join(b.resultsDir, "pprof"), prof.name+"-"+run, b.log); err != nil {
			return m, err
		}
	}
	if probe != nil {
		if err := probe(false); err != nil {
			return m, err
		}
	}
	if p.mode != Local {
		if m.Sample.Segments, err = b.segments(ctx, p.mode, m.Sample); err != nil {
			return m, err
		}
	}
	if b.Config.Rest > 0 {
		rest, err := b.rest(ctx, p, n)
		if err != nil {
			return m, err
		}
		m.Rest = &rest
	}
	fmt.Fprintf(b.log, "bench: %d %s pods: %d Running, %d unfinished, wall %s; deleting them\n", n, p.mode, len(m.Sample.Latencies), m.Sample.Unfinished, m.Sample.Wall.Round(time.Millisecond))
	if err := b.cleanup(ctx, p, run, n); err != nil {
		return m, err
	}
	trafficAfter, err := readTraffic(ctx, b.clusters()...)
	m.Traffic = trafficAfter.since(trafficBefore)
	return m, err
}

// creationTime is how long the creator takes to send n creates.
func (b *Bench) creationTime(n int) time.Duration {
	return time.Duration(float64(n) / b.Config.CreatorQPS * float64(time.Second))
}

func (b *Bench) warmUp(ctx context.Context, p path, n int) error {
	run := fmt.Sprintf("warmup-%s-%d", p.mode, n)
	c := b.creator(p.cs, 2*time.Minute)
	s, err := c.Run(ctx, p.ns, map[string]string{RunLabel: run}, Pods(p.mode, run, warmUpPods))
	if err == nil && s.Unfinished > 0 {
		err = fmt.Errorf("warming up the %s path: %d of %d pods in namespace %s not Running after 2m: see the lab logs in %s", p.mode, s.Unfinished, warmUpPods, p.ns, b.Lab.Dir())
	}
	if err != nil {
		return err
	}
	return b.cleanup(ctx, p, run, warmUpPods)
}

// cleanup deletes a run's pods at once and waits until none is left where
// they were created nor, for offloaded pods, in the twin namespaces.
// The deletion is asked again while pods are left: one DeleteCollection of
// 10,000 offloaded pods outlasted the API server's request timeout, deleted
// only part of them and ended the run before its report was written.
func (b *Bench) cleanup(ctx context.Context, p path, run string, n int) error {
	sel := metav1.ListOptions{LabelSelector: RunLabel + "=" + run}
	deleteLeft := func(ctx context.Context) error {
		if err := p.cs.CoreV1().Pods(p.ns).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To(int64(0))}, sel); err != nil {
			return fmt.Errorf("deleting the pods of run %s in namespace %s: %w", run, p.ns, err)
		}
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute+time.Duration(n)*200*time.Millisecond)
	defer cancel()
	return framework.Poll(wctx, func(ctx context.Context) error {
		left, err := p.cs.CoreV1().Pods(p.ns).List(ctx, sel)
		if err != nil {
			return err
		}
		if live := slices.ContainsFunc(left.Items, func(pod corev1.Pod) bool { return pod.DeletionTimestamp.IsZero() }); live {
			if err := deleteLeft(ctx); err != nil {
				return err
			}
		}
		if len(left.Items) > 0 {
			return fmt.Errorf("%d pods of run %s left in namespace %s", len(left.Items), run, p.ns)
		}
		return b.twinsEmpty(ctx, p)
	})
}

// startAPIServerProfiles starts CPU profiles of every cluster's API server
// over the next d (a batch's creation, or its rest window), when the lab
// runs them with profiling (lab.EnvAPIServerProfiling): the offloaded
// path's excess CPU is mostly the API servers' (issue 17, target 1), which
// only their own profiles split.
func (b *Bench) startAPIServerProfiles(ctx context.Context, d time.Duration) ([]*profiler, error) {
	if os.Getenv(lab.EnvAPIServerProfiling) != "1" {
		return nil, nil
	}
	var out []*profiler
	for _, c := range b.clusters() {
		fetch, err := apiServerPprof(c)
		if err != nil {
			return nil, err
		}
		out = append(out, startCPUProfile(ctx, fetch, c.Name+"-apiserver", d))
	}
	return out, nil
}
