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

package policies

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// DefaultSharingPercentage is the share of a provider's free resources offered
// when an offer lists no explicit limits, as Liqo does.
const DefaultSharingPercentage = 90

// virtualNodeLabel marks nodes that are themselves borrowed capacity; a provider
// never re-offers them, or two clusters peered both ways would inflate each other.
const (
	virtualNodeLabelKey   = "liqo.io/type"
	virtualNodeLabelValue = "virtual-node"
)

// FreeAllocatable sums the allocatable resources of the Ready, schedulable,
// physical nodes and subtracts the requests of the pods still holding them.
func FreeAllocatable(nodes []corev1.Node, pods []corev1.Pod) corev1.ResourceList {
	return FreeAllocatableUsing(nodes, UsageByNode(pods))
}

// ResellableFree is what a broker offers consumerID before its percentage:
// the free capacity of its Ready, schedulable virtual nodes, i.e. of its
// providers' offers, less the requests of the pods on them. Physical nodes
// are left out, since the consumer's pods are only placed on virtual nodes.
// Two kinds of virtual node are never resold, which is what keeps clusters
// peered in a ring from inflating each other's offers: consumerID's own (its
// capacity sold back to it), and one labelled brokered (another broker's
// offer), so capacity is resold at most once.
func ResellableFree(nodes []corev1.Node, pods []corev1.Pod, consumerID string) corev1.ResourceList {
	return ResellableFreeUsing(nodes, UsageByNode(pods), consumerID)
}

// ResellableNodes names the nodes ResellableFree counts, for status messages.
func ResellableNodes(nodes []corev1.Node, consumerID string) []string {
	var names []string
	for i := range nodes {
		if resellable(&nodes[i], consumerID) {
			names = append(names, nodes[i].Name)
		}
	}
	sort.Strings(names)
	return names
}

func resellable(n *corev1.Node, consumerID string) bool {
	return n.Labels[virtualNodeLabelKey] == virtualNodeLabelValue &&
		n.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel] != consumerID &&
		n.Labels[virtualkubeletv1alpha1.BrokeredLabel] != "true" &&
		schedulableAndReady(n)
}

// allocatableOf sums the allocatable of the nodes counts accepts, and names
// them.
func allocatableOf(nodes []corev1.Node, counts func(*corev1.Node) bool) (corev1.ResourceList, map[string]bool) {
	free := corev1.ResourceList{}
	counted := map[string]bool{}
	for i := range nodes {
		n := &nodes[i]
		if !counts(n) {
			continue
		}
		counted[n.Name] = true
		AddRequests(free, n.Status.Allocatable)
	}
	return free, counted
}

// floorAtZero makes every negative quantity zero: pods over a node's
// allocatable leave nothing free, not a debt.
func floorAtZero(free corev1.ResourceList) {
	for name, q := range free {
		if q.Sign() < 0 {
			free[name] = *resource.NewQuantity(0, q.Format)
		}
	}
}

func physicalNodeCounts(n *corev1.Node) bool {
	return n.Labels[virtualNodeLabelKey] != virtualNodeLabelValue && schedulableAndReady(n)
}

func schedulableAndReady(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return false
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// RoundedToZero names a resource the provider has but whose share rounds down to
// nothing: an integer resource (a GPU) is never silently dropped from an offer.
type RoundedToZero struct {
	Name corev1.ResourceName
	Free resource.Quantity
}

// ScaleOffer returns percent % of free. CPU keeps millicores; every other
// resource is an integer count of its unit and is rounded down.
func ScaleOffer(free corev1.ResourceList, percent int32) (corev1.ResourceList, []RoundedToZero) {
	offered := corev1.ResourceList{}
	var zeroed []RoundedToZero
	for _, name := range sortedNames(free) {
		q := free[name]
		var scaled resource.Quantity
		if name == corev1.ResourceCPU {
			scaled = *resource.NewMilliQuantity(q.MilliValue()*int64(percent)/100, q.Format)
		} else {
			scaled = *resource.NewQuantity(q.Value()*int64(percent)/100, q.Format)
		}
		if scaled.IsZero() && !q.IsZero() {
			zeroed = append(zeroed, RoundedToZero{Name: name, Free: q})
		}
		offered[name] = scaled
	}
	return offered, zeroed
}

// RoundedToZeroMessage explains zeroed resources and how to keep them.
func RoundedToZeroMessage(zeroed []RoundedToZero, percent int32) string {
	parts := make([]string, 0, len(zeroed))
	for _, z := range zeroed {
		parts = append(parts, fmt.Sprintf("%s: %d%% of %s free rounds down to 0", z.Name, percent, z.Free.String()))
	}
	return strings.Join(parts, "; ") + ": raise spec.sharingPercentage or list the resource in spec.resources.limits"
}

func sortedNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}
