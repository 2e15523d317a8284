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
	"io"
	"path/filepath"
	"time"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// LocalResult is the reference for target 3 of issue 17, "the virtual
// kubelet (the manager's share for one peering) ≤ 100 MiB": rome's manager
// while a batch's pods run in rome on its own nodes, offloaded nowhere.
// The manager caches every pod of its cluster for its own controllers
// (offloadedpod watches them all), offloaded or not; what the offloaded
// batch holds beyond this is the peering's.
type LocalResult struct {
	Sample Sample
	CPU    CPU
	// KubeletBefore and KubeletAfter are rome's manager, restarted for this
	// batch as for the offloaded one, so its peak RSS is this batch's.
	KubeletBefore, KubeletAfter framework.Memory
	// LiveHeap is read idle and with the pods running; Deleted stays 0.
	LiveHeap LiveHeaps
}

// runLocal measures the local reference: n pods in rome's own namespace,
// with rome's manager restarted first and its memory read around them.
// The third result is the lab's CPU with the pods at rest, nil if not measured.
func (b *Bench) runLocal(ctx context.Context, n int) (*LocalResult, *RestCPU, error) {
	fmt.Fprintf(b.log, "bench: %d pods, local: run in rome on its own nodes, the reference for the peering's memory (restarting rome's manager)\n", n)
	pprofAddr := framework.PprofAddress(b.Rome)
	if err := framework.StartManager(ctx, b.Rome, b.romeID, framework.PprofArg(b.Rome)); err != nil {
		return nil, nil, err
	}
	l := &LocalResult{}
	var profile *profiler
	m, err := b.measure(ctx, b.path(Local), n, func(before bool) error {
		if before {
			// rome's manager watches every pod of its cluster: what that
			// costs it for pods it does not offload.
			profile = startCPUProfile(ctx, managerPprof(pprofAddr), "rome-manager", b.creationTime(n)+5*time.Second)
		} else {
			// The heap profile, against the offloaded batch's (pprof
			// -diff_base), says what the peering holds by allocation site.
			if err := profile.finish(ctx, filepath.Join(b.resultsDir, "pprof"), fmt.Sprintf("rome-manager-%d-local", n), b.log); err != nil {
				return err
			}
		}
		return b.readManagerMemory(ctx, pprofAddr, before, &l.KubeletBefore, &l.KubeletAfter, &l.LiveHeap)
	})
	l.Sample, l.CPU = m.Sample, m.CPU
	return l, m.Rest, err
}

// readManagerMemory reads rome's manager's RSS into rssBefore or rssAfter,
// then its heap after a collection into heap's Idle or Running.
func (b *Bench) readManagerMemory(ctx context.Context, pprofAddr string, before bool, rssBefore, rssAfter *framework.Memory, heap *LiveHeaps) error {
	if err := b.readKubeletMemory(before, rssBefore, rssAfter); err != nil {
		return err
	}
	// After the RSS: the collection it forces may lower the current RSS.
	at := &heap.Running
	if before {
		at = &heap.Idle
	}
	return readLiveHeap(ctx, pprofAddr, at)
}

// MemoryShare is the peering's share of rome's manager's memory, in bytes:
// the offloaded batch's peak RSS and live heap with the pods running, less
// the local reference's. Negative where the reference held more.
type MemoryShare struct {
	PeakRSS, LiveHeap int64
}

// PeeringShare is r's MemoryShare, and false when the batch lacks the
// reference or either heap reading.
func PeeringShare(r Result) (MemoryShare, bool) {
	l := r.Local
	if l == nil || l.LiveHeap.Running == 0 || r.KubeletLiveHeap.Running == 0 || l.KubeletAfter.Peak == 0 || r.KubeletAfter.Peak == 0 {
		return MemoryShare{}, false
	}
	return MemoryShare{
		PeakRSS:  r.KubeletAfter.Peak - l.KubeletAfter.Peak,
		LiveHeap: int64(r.KubeletLiveHeap.Running) - int64(l.LiveHeap.Running),
	}, true
}

// peeringShareTarget is target 3's bound on the peering's share.
const peeringShareTarget = 100 * mib

// WriteMemoryShare prints, for every batch with the local reference, rome's
// manager's memory with the pods local and offloaded, and the difference
// against target 3, then a blank line; nothing when no batch has it.
func WriteMemoryShare(w io.Writer, results []Result) error {
	tw := newTable(w)
	header := false
	for _, r := range results {
		share, ok := PeeringShare(r)
		if !ok {
			continue
		}
		if !header {
			fmt.Fprintln(w, "rome's manager (the virtual kubelet's process) with the batch's pods running; target 3: the peering's share ≤ 100 MiB")
			fmt.Fprintln(tw, "pods\tthe pods\tpeak RSS\tlive heap\tidle heap\tunfinished\t")
			header = true
		}
		l := r.Local
		fmt.Fprintf(tw, "%d\tin rome, on its own nodes (local)\t%s\t%s\t%s\t%d\t\n", r.Pods,
			mibs(l.KubeletAfter.Peak), mibs(int64(l.LiveHeap.Running)), mibs(int64(l.LiveHeap.Idle)), l.Sample.Unfinished)
		fmt.Fprintf(tw, "%d\toffloaded to milan\t%s\t%s\t%s\t%d\t\n", r.Pods,
			mibs(r.KubeletAfter.Peak), mibs(int64(r.KubeletLiveHeap.Running)), mibs(int64(r.KubeletLiveHeap.Idle)), r.Offloaded.Unfinished)
		fmt.Fprintf(tw, "%d\tthe peering's share (offloaded − local)\t%s (%s)\t%s (%s)\t\t\t\n", r.Pods,
			mibs(share.PeakRSS), verdict(share.PeakRSS <= peeringShareTarget), mibs(share.LiveHeap), verdict(share.LiveHeap <= peeringShareTarget))
	}
	if err := tw.Flush(); err != nil || !header {
		return err
	}
	_, err := fmt.Fprintln(w)
	return err
}

func mibs(b int64) string {
	return fmt.Sprintf("%.0f MiB", float64(b)/mib)
}

// ReportedLocal is the local reference in the JSON report.
type ReportedLocal struct {
	Unfinished int                `json:"unfinished"`
	Wall       float64            `json:"wallMs"`
	CPUSeconds map[string]float64 `json:"cpuSeconds"`
	Manager    ReportedMemory     `json:"manager"`
	// PeeringShare is the offloaded batch's manager memory less Manager's.
	PeeringShareRSSMiB      float64 `json:"peeringSharePeakRSSMiB"`
	PeeringShareLiveHeapMiB float64 `json:"peeringShareLiveHeapMiB"`
}

func reportedLocal(r Result) *ReportedLocal {
	l := r.Local
	if l == nil {
		return nil
	}
	out := &ReportedLocal{Unfinished: l.Sample.Unfinished, Wall: *ms(l.Sample.Wall), CPUSeconds: cpuSeconds(l.CPU),
		Manager: reportedMemory(l.KubeletBefore, l.KubeletAfter)}
	out.Manager.IdleLiveHeapMiB, out.Manager.LiveHeapMiB = float64(l.LiveHeap.Idle)/mib, float64(l.LiveHeap.Running)/mib
	if share, ok := PeeringShare(r); ok {
		out.PeeringShareRSSMiB, out.PeeringShareLiveHeapMiB = float64(share.PeakRSS)/mib, float64(share.LiveHeap)/mib
	}
	return out
}
