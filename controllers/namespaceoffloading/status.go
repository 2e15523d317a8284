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

package namespaceoffloading

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// peerOutcome is what happened for one peer in one reconcile.
type peerOutcome struct {
	clusterID, clusterName string
	// key is the peer's unique name, the key of remoteNamespacesConditions.
	key      string
	selected bool
	// connected is false when the peer is selected but its peering is not up.
	connected bool
	// phase and message come from the provider's answer to the twin request.
	phase, message string
}

// offloadingState is the status computed from the outcomes.
type offloadingState struct {
	phase offloadingv1alpha1.OffloadingPhase
	ready bool
	// stalled: nothing will change without a change in git or in a peer's
	// labels, so kstatus reports Failed and a Flux health check fails fast
	// with the reason instead of waiting out its timeout.
	stalled    bool
	reason     string
	message    string
	conditions map[string]offloadingv1alpha1.RemoteNamespaceConditions
}

const (
	twinReady    = "Ready"
	twinConflict = "Conflict"
)

// computeState turns per-peer outcomes into the phase and the per-cluster
// conditions the seed shows (OffloadingRequired, then Ready). waitingFor
// names the peerings asked for whose virtual node does not exist yet: until
// they are up, a selector that matches nothing may still match them.
func computeState(remoteName string, outcomes []peerOutcome, waitingFor []string, now metav1.Time) offloadingState {
	s := offloadingState{conditions: map[string]offloadingv1alpha1.RemoteNamespaceConditions{}}
	selected, ready, failed, conflicts := 0, 0, 0, 0
	var problems []string
	for _, o := range outcomes {
		if !o.selected {
			s.conditions[o.key] = offloadingv1alpha1.RemoteNamespaceConditions{cond(offloadingv1alpha1.NamespaceOffloadingRequiredCondition, false,
				offloadingv1alpha1.ClusterNotSelectedReason, "The remote cluster has not been selected through the ClusterSelector field", now)}
			continue
		}
		selected++
		conds := offloadingv1alpha1.RemoteNamespaceConditions{cond(offloadingv1alpha1.NamespaceOffloadingRequiredCondition, true,
			offloadingv1alpha1.ClusterSelectedReason, "The remote cluster has been selected through the ClusterSelector field", now)}
		switch {
		case !o.connected:
			conds = append(conds, cond(offloadingv1alpha1.NamespaceReadyCondition, false, offloadingv1alpha1.NamespaceCreationFailedReason,
				"the peering with this cluster is not established", now))
			problems = append(problems, fmt.Sprintf("%s: peering not established", o.clusterName))
		case o.phase == twinReady:
			ready++
			conds = append(conds, cond(offloadingv1alpha1.NamespaceReadyCondition, true, offloadingv1alpha1.NamespaceCreatedReason,
				"Namespace correctly offloaded to the remote cluster", now))
		case o.phase == twinConflict:
			failed++
			conflicts++
			conds = append(conds, cond(offloadingv1alpha1.NamespaceReadyCondition, false, offloadingv1alpha1.NamespaceNameConflictReason, o.message, now))
			problems = append(problems, fmt.Sprintf("%s: %s", o.clusterName, o.message))
		case o.phase != "":
			failed++
			conds = append(conds, cond(offloadingv1alpha1.NamespaceReadyCondition, false, offloadingv1alpha1.NamespaceCreationFailedReason, o.message, now))
			problems = append(problems, fmt.Sprintf("%s: %s", o.clusterName, o.message))
		default:
			conds = append(conds, cond(offloadingv1alpha1.NamespaceReadyCondition, false, "NamespaceRequested",
				fmt.Sprintf("namespace %s requested, waiting for the provider", remoteName), now))
		}
		s.conditions[o.key] = conds
	}
	sort.Strings(problems)
	switch {
	case selected == 0 && len(waitingFor) > 0:
		s.phase, s.reason = offloadingv1alpha1.NoClusterSelectedOffloadingPhase, string(offloadingv1alpha1.NoClusterSelectedOffloadingPhase)
		s.message = fmt.Sprintf("spec.clusterSelector matches no peered cluster yet; waiting for the peering with %s", strings.Join(waitingFor, ", "))
	case selected == 0:
		s.phase, s.reason, s.stalled = offloadingv1alpha1.NoClusterSelectedOffloadingPhase, string(offloadingv1alpha1.NoClusterSelectedOffloadingPhase), true
		s.message = "spec.clusterSelector matches no peered cluster: nothing is offloaded; check the selector against the virtual nodes' labels (" + describePeers(outcomes) + ")"
	case ready == selected:
		s.phase, s.ready, s.reason = offloadingv1alpha1.ReadyOffloadingPhase, true, "NamespaceOffloaded"
		s.message = fmt.Sprintf("namespace offloaded as %s to %d cluster(s)", remoteName, ready)
	case failed == selected:
		s.phase, s.reason, s.message = offloadingv1alpha1.AllFailedOffloadingPhase, string(offloadingv1alpha1.AllFailedOffloadingPhase), strings.Join(problems, "; ")
		// A name clash on every peer needs a person: another mapping
		// strategy, or the clashing namespaces removed.
		s.stalled = conflicts == selected
	case failed > 0:
		s.phase, s.reason, s.message = offloadingv1alpha1.SomeFailedOffloadingPhase, string(offloadingv1alpha1.SomeFailedOffloadingPhase), strings.Join(problems, "; ")
	default:
		s.phase, s.reason = offloadingv1alpha1.InProgressOffloadingPhase, string(offloadingv1alpha1.InProgressOffloadingPhase)
		s.message = fmt.Sprintf("%d of %d selected cluster(s) ready", ready, selected)
		if len(problems) > 0 {
			s.message += ": " + strings.Join(problems, "; ")
		}
	}
	return s
}

func cond(t offloadingv1alpha1.RemoteNamespaceConditionType, ok bool, reason, message string, now metav1.Time) offloadingv1alpha1.RemoteNamespaceCondition {
	status := metav1.ConditionFalse
	if ok {
		status = metav1.ConditionTrue
	}
	return offloadingv1alpha1.RemoteNamespaceCondition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: now}
}

// keepTransitionTimes carries lastTransitionTime over when a condition's status did not change.
func keepTransitionTimes(old, next map[string]offloadingv1alpha1.RemoteNamespaceConditions) {
	for key, conds := range next {
		for i := range conds {
			for _, o := range old[key] {
				if o.Type == conds[i].Type && o.Status == conds[i].Status {
					conds[i].LastTransitionTime = o.LastTransitionTime
				}
			}
		}
	}
}

// describePeers lists the peers a selector was evaluated against, for a
// message that shows why it matched none.
func describePeers(outcomes []peerOutcome) string {
	if len(outcomes) == 0 {
		return "there are no virtual nodes"
	}
	var names []string
	for _, o := range outcomes {
		names = append(names, o.clusterName)
	}
	sort.Strings(names)
	return "peers: " + strings.Join(names, ", ")
}

// peeringsWithoutNode names the ForeignClusters that ask for an outgoing
// peering and have no virtual node yet: peers a selector may still match
// once they are up.
func peeringsWithoutNode(fcs []discoveryv1alpha1.ForeignCluster, nodes []corev1.Node) []string {
	up := map[string]bool{}
	for _, n := range nodes {
		up[n.Labels[discoveryv1alpha1.RemoteClusterIDLabel]] = true
	}
	var waiting []string
	for _, fc := range fcs {
		if fc.Spec.OutgoingPeeringEnabled == discoveryv1alpha1.PeeringEnabledNo || fc.Spec.Suspend || !fc.DeletionTimestamp.IsZero() {
			continue
		}
		if !up[fc.Spec.ClusterIdentity.ClusterID] {
			waiting = append(waiting, fc.Name)
		}
	}
	sort.Strings(waiting)
	return waiting
}

// applyState writes the computed state into the object's status and its
// Flux conditions; fluxstatus.Finalize settles Reconciling and
// observedGeneration from them.
func applyState(no *offloadingv1alpha1.NamespaceOffloading, remoteName string, s offloadingState) {
	keepTransitionTimes(no.Status.RemoteNamespacesConditions, s.conditions)
	no.Status.RemoteNamespaceName = remoteName
	no.Status.RemoteNamespacesConditions = s.conditions
	no.Status.OffloadingPhase = s.phase
	if s.ready {
		conditions.MarkTrue(no, meta.ReadyCondition, s.reason, "%s", s.message)
		return
	}
	fluxstatus.MarkNotReady(no, s.stalled, s.reason, "%s", s.message)
}
