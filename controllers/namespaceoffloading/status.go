package namespaceoffloading

import (
	"fmt"
	"sort"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
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
	phase      offloadingv1alpha1.OffloadingPhase
	ready      bool
	reason     string
	message    string
	conditions map[string]offloadingv1alpha1.RemoteNamespaceConditions
}

const (
	twinReady    = "Ready"
	twinConflict = "Conflict"
)

// computeState turns per-peer outcomes into the phase and the per-cluster
// conditions the seed shows (OffloadingRequired, then Ready).
func computeState(remoteName string, outcomes []peerOutcome, now metav1.Time) offloadingState {
	s := offloadingState{conditions: map[string]offloadingv1alpha1.RemoteNamespaceConditions{}}
	selected, ready, failed := 0, 0, 0
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
	case selected == 0:
		s.phase, s.reason = offloadingv1alpha1.NoClusterSelectedOffloadingPhase, string(offloadingv1alpha1.NoClusterSelectedOffloadingPhase)
		s.message = "spec.clusterSelector matches no peered cluster: nothing is offloaded; check the selector against the virtual nodes' labels"
	case ready == selected:
		s.phase, s.ready, s.reason = offloadingv1alpha1.ReadyOffloadingPhase, true, "NamespaceOffloaded"
		s.message = fmt.Sprintf("namespace offloaded as %s to %d cluster(s)", remoteName, ready)
	case failed == selected:
		s.phase, s.reason, s.message = offloadingv1alpha1.AllFailedOffloadingPhase, string(offloadingv1alpha1.AllFailedOffloadingPhase), strings.Join(problems, "; ")
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
