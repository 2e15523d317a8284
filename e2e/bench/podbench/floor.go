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
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// Issue 17 prices an offloaded pod against "two control planes": about 2×
// vanilla is the floor, and target 1 allows 2.3×. The bench measures that
// floor in the same run instead of assuming it. The vanilla batch is milan's
// control plane running the pods itself, the local batch rome's running the
// same pods on its own nodes; the floor is the vanilla batch with rome's
// idle control plane replaced by its busy one. Whatever the offloaded batch
// costs beyond it is what Spillway adds: the ShadowPod in milan's control
// plane, the virtual kubelet's writes in rome's, and the managers.

// controlPlane are the processes a plain cluster runs for its pods: the
// managers, the peer link and the gateways are Spillway's or the lab's
// network, not a control plane.
var controlPlane = map[string]bool{lab.Etcd: true, lab.APIServer: true, lab.ControllerManager: true, lab.Scheduler: true, lab.Kwok: true}

// The clusters of the one-hop paths.
const (
	providerCluster = "milan"
	consumerCluster = "rome"
)

// FloorSplit is one batch's CPU in three parts, each as the floor has it
// and as the offloaded batch spent it.
type FloorSplit struct {
	// Provider is milan's control plane: in the vanilla batch, and offloaded.
	Provider [2]time.Duration
	// Consumer is rome's control plane: in the local batch, and offloaded.
	Consumer [2]time.Duration
	// Rest is every other lab process (the managers, the links): in the
	// vanilla batch, where the managers offload nothing, and offloaded.
	Rest [2]time.Duration
	// Vanilla is the vanilla batch's total, the target's denominator.
	Vanilla time.Duration
}

// Floor is the two control planes' CPU with Spillway costing nothing beyond
// what it costs when nothing is offloaded.
func (s FloorSplit) Floor() time.Duration { return s.Provider[0] + s.Consumer[0] + s.Rest[0] }

// Offloaded is the offloaded batch's total.
func (s FloorSplit) Offloaded() time.Duration { return s.Provider[1] + s.Consumer[1] + s.Rest[1] }

// SplitFloor is r's FloorSplit, and false when r has no local batch to
// measure rome's control plane with, or no vanilla CPU to divide by.
func SplitFloor(r Result) (FloorSplit, bool) {
	if r.Local == nil || len(r.Local.CPU) == 0 || len(r.OffloadedCPU) == 0 {
		return FloorSplit{}, false
	}
	s := FloorSplit{Vanilla: r.VanillaCPU.Total()}
	if s.Vanilla <= 0 {
		return FloorSplit{}, false
	}
	vanilla, local, offloaded := byPart(r.VanillaCPU), byPart(r.Local.CPU), byPart(r.OffloadedCPU)
	s.Provider = [2]time.Duration{vanilla[providerPart], offloaded[providerPart]}
	s.Consumer = [2]time.Duration{local[consumerPart], offloaded[consumerPart]}
	s.Rest = [2]time.Duration{vanilla[restPart], offloaded[restPart]}
	return s, true
}

// byPart sums c by part.
func byPart(c CPU) [partCount]time.Duration {
	var out [partCount]time.Duration
	for k, v := range c {
		out[part(k)] += v
	}
	return out
}

type cpuPart int

const (
	restPart cpuPart = iota
	providerPart
	consumerPart
	partCount
)

// part places a "<cluster>/<process>" key of CPU: a control-plane process of
// milan or rome, or the rest.
func part(key string) cpuPart {
	cluster, process, _ := strings.Cut(key, "/")
	if !controlPlane[process] {
		return restPart
	}
	switch cluster {
	case providerCluster:
		return providerPart
	case consumerCluster:
		return consumerPart
	}
	return restPart
}

// cpuTarget is target 1's bound on the offloaded batch's CPU, in vanillas.
const cpuTarget = 2.3

// WriteFloorTable prints, for every batch with the local reference, the
// offloaded batch's CPU against the two control planes' floor, part by
// part, then what target 1 leaves Spillway and what it used, per pod; after
// a blank line, to follow the CPU table. Nothing when no batch has the
// reference.
func WriteFloorTable(w io.Writer, results []Result) error {
	tw := newTable(w)
	header := false
	for _, r := range results {
		s, ok := SplitFloor(r)
		if !ok {
			continue
		}
		if !header {
			fmt.Fprintln(w, "\nCPU against two control planes (the floor: milan's in the vanilla batch, rome's in the local one, the rest as in vanilla)")
			fmt.Fprintln(tw, "pods\tpart\tfloor\toffloaded\tabove the floor\t")
			header = true
		}
		floorRow(tw, r.Pods, "milan's control plane", s.Provider)
		floorRow(tw, r.Pods, "rome's control plane", s.Consumer)
		floorRow(tw, r.Pods, "the managers and links", s.Rest)
		floorRow(tw, r.Pods, "total", [2]time.Duration{s.Floor(), s.Offloaded()})
		fmt.Fprintf(tw, "%d\t÷ vanilla (%s)\t%s\t%s\t\t\n", r.Pods, dur(s.Vanilla), times(Ratio(s.Floor(), s.Vanilla)), times(Ratio(s.Offloaded(), s.Vanilla)))
		allowed := time.Duration(cpuTarget*float64(s.Vanilla)) - s.Floor()
		fmt.Fprintf(tw, "%d\tper pod above the floor: target 1 (%g×) leaves\t%s\tused\t%s\t\n", r.Pods, cpuTarget,
			perPodMs(allowed, r.Pods), perPodMs(s.Offloaded()-s.Floor(), r.Pods))
	}
	return tw.Flush()
}

func floorRow(w io.Writer, pods int, label string, d [2]time.Duration) {
	fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t\n", pods, label, dur(d[0]), dur(d[1]), signed(d[1]-d[0]))
}

func signed(d time.Duration) string {
	if d < 0 {
		return "-" + dur(-d)
	}
	return "+" + dur(d)
}

func perPodMs(d time.Duration, pods int) string {
	return fmt.Sprintf("%.2f ms", d.Seconds()*1000/float64(pods))
}

// ReportedFloor is a FloorSplit in the JSON report, in CPU seconds.
type ReportedFloor struct {
	ProviderSeconds [2]float64 `json:"providerControlPlaneSeconds"`
	ConsumerSeconds [2]float64 `json:"consumerControlPlaneSeconds"`
	RestSeconds     [2]float64 `json:"restSeconds"`
	// FloorRatio and OffloadedRatio are the floor's and the offloaded
	// batch's CPU over the vanilla batch's.
	FloorRatio     float64 `json:"floorRatio"`
	OffloadedRatio float64 `json:"offloadedRatio"`
}

func reportedFloor(r Result) *ReportedFloor {
	s, ok := SplitFloor(r)
	if !ok {
		return nil
	}
	secs := func(d [2]time.Duration) [2]float64 { return [2]float64{d[0].Seconds(), d[1].Seconds()} }
	return &ReportedFloor{ProviderSeconds: secs(s.Provider), ConsumerSeconds: secs(s.Consumer), RestSeconds: secs(s.Rest),
		FloorRatio: Ratio(s.Floor(), s.Vanilla), OffloadedRatio: Ratio(s.Offloaded(), s.Vanilla)}
}
