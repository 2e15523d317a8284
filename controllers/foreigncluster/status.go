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

package foreigncluster

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/network/fabric"
	"github.com/spillway-dev/spillway/peering/virtualnode"
)

// Reasons beyond the API's shared ones; each names one thing a person can fix.
const (
	ReasonAuthorizationFailed    = "AuthorizationFailed"
	ReasonOfferNotFound          = "OfferNotFound"
	ReasonOfferNotReady          = "OfferNotReady"
	ReasonClusterIDMismatch      = "ClusterIDMismatch"
	ReasonOfferForAnotherCluster = "OfferForAnotherCluster"
	ReasonVirtualNodeNotReady    = "VirtualNodeNotReady"
	ReasonUnpeering              = "Unpeering"
	ReasonRemoteError            = "RemoteError"
)

// observation is everything one reconcile learnt; status is a pure function of it.
type observation struct {
	outgoingEnabled bool
	secretRef       string
	server          string
	localClusterID  string
	specClusterID   string
	secretMissing   bool
	credsErr        error
	remoteErr       error
	offer           *remoteOffer
	nodeName        string
	nodeHealth      *virtualnode.Health
	incoming        bool
	unpeering       unpeering
	// network is the fabric's state of this peering; nil when no gateway is wanted.
	network *fabric.State
}

// unpeering is what one pass of unpeering left to do, in its order: evict
// the virtual node's pods, have the provider release the twins this cluster
// asked for, then delete the node.
type unpeering struct {
	podsToEvict int
	// twinRequests are the twin-namespace requests the provider still holds.
	twinRequests []string
	// providerErr: the provider could not be asked to release them.
	providerErr error
	// blockedBy says which PodDisruptionBudget refused an eviction.
	blockedBy string
	// drainErr: no session runs to hand the pods back, and none could be
	// started (keepDraining).
	drainErr error
}

// done says the node may go: its pods are gone and so are its twins.
func (u unpeering) done() bool {
	return u.podsToEvict == 0 && len(u.twinRequests) == 0 && u.providerErr == nil
}

// unpeeringPoll paces the passes of an unpeering in progress. Its steps
// (evicted pods gone, twins removed by the provider, the node deleted) raise
// no event this controller watches, and spec.interval, which paces the
// probes of a live peering (10 s by default), made each step wait for the
// next probe: the faults suite's unpeer across a manager restart took 61 s,
// 35 s at this pace.
// NamespaceOffloading polls its own transient states every 3 s; kubectl
// drain retries a refused eviction every 5 s.
const unpeeringPoll = 3 * time.Second

// unpeeringRequeue is the wait before the next pass of an unpeering still in
// progress: no longer than unpeeringPoll, except while the provider does not
// answer, when spec.interval keeps its promise not to flood it.
func unpeeringRequeue(interval time.Duration, u unpeering) time.Duration {
	if u.providerErr != nil {
		return interval
	}
	return min(interval, unpeeringPoll)
}

// unpeeringProgress says what unpeering waits for, "" once nothing is left.
func unpeeringProgress(node string, u unpeering) string {
	switch {
	case u.podsToEvict > 0:
		msg := fmt.Sprintf("virtual node %s cordoned, %d pod(s) still to evict", node, u.podsToEvict)
		if u.drainErr != nil {
			msg += fmt.Sprintf(", which stay until a session can hand them back: %v", u.drainErr)
		}
		if u.blockedBy != "" {
			msg += "; " + u.blockedBy
		}
		return msg
	case u.providerErr != nil:
		return fmt.Sprintf("cannot reach the provider to release the twin namespaces this cluster requested there, so they and the peering stay: %v", u.providerErr)
	case len(u.twinRequests) > 0:
		return fmt.Sprintf("waiting for the provider to remove %d twin namespace(s) this cluster requested (requests %s)",
			len(u.twinRequests), strings.Join(u.twinRequests, ", "))
	case node != "":
		return fmt.Sprintf("virtual node %s is being deleted", node)
	}
	return ""
}

// peeringState is the computed status: Liqo's peering conditions plus Ready.
type peeringState struct {
	auth, outgoing, incoming, network discoveryv1alpha1.PeeringConditionStatus
	networkReason, networkMessage     string
	ready                             bool
	stalled                           bool
	reason, message                   string
}

// computeState is a ladder of early returns, one per thing that can be wrong,
// each with a message that says what to do.
func computeState(o observation) peeringState {
	s := peeringState{auth: discoveryv1alpha1.PeeringConditionStatusNone, outgoing: discoveryv1alpha1.PeeringConditionStatusNone,
		incoming: discoveryv1alpha1.PeeringConditionStatusNone, network: discoveryv1alpha1.PeeringConditionStatusNone}
	if o.incoming {
		s.incoming = discoveryv1alpha1.PeeringConditionStatusEstablished
	}
	s.network = networkCondition(o.network)
	if o.network != nil {
		s.networkReason, s.networkMessage = o.network.Reason, o.network.Message
	}
	fail := func(reason string, stalled bool, format string, args ...any) peeringState {
		s.reason, s.stalled, s.message = reason, stalled, fmt.Sprintf(format, args...)
		return s
	}
	if !o.outgoingEnabled {
		if progress := unpeeringProgress(o.nodeName, o.unpeering); progress != "" {
			s.outgoing = discoveryv1alpha1.PeeringConditionStatusDisconnecting
			return fail(ReasonUnpeering, false, "unpeering: %s", progress)
		}
		s.ready, s.reason = true, discoveryv1alpha1.PeeringDisabledReason
		s.message = "outgoing peering is disabled (spec.outgoingPeeringEnabled: No); no virtual node"
		return s
	}
	s.auth, s.outgoing = discoveryv1alpha1.PeeringConditionStatusPending, discoveryv1alpha1.PeeringConditionStatusPending
	if o.nodeName != "" {
		// A peering that was up stays up while the provider is away: its node goes NotReady, nothing is deleted.
		s.outgoing = discoveryv1alpha1.PeeringConditionStatusEstablished
	}
	switch {
	case o.secretMissing:
		return fail(discoveryv1alpha1.CredentialsNotFoundReason, false,
			"secret %s not found: it is created by the ExternalSecret of this peering; check that ExternalSecret's status", o.secretRef)
	case o.credsErr != nil:
		s.auth = discoveryv1alpha1.PeeringConditionStatusError
		return fail(discoveryv1alpha1.InvalidCredentialsReason, false, "%v", o.credsErr)
	case o.remoteErr != nil:
		return remoteFailureState(s, o)
	}
	s.auth = discoveryv1alpha1.PeeringConditionStatusEstablished
	switch {
	case o.offer.providerClusterID != o.specClusterID:
		s.outgoing = discoveryv1alpha1.PeeringConditionStatusDenied
		return fail(ReasonClusterIDMismatch, true,
			"spec.clusterIdentity.clusterID is %q but the cluster at %s reports %q: fix the ForeignCluster in git, or the credentials secret %s",
			o.specClusterID, o.server, o.offer.providerClusterID, o.secretRef)
	case o.offer.consumerClusterID != o.localClusterID:
		s.outgoing = discoveryv1alpha1.PeeringConditionStatusDenied
		return fail(ReasonOfferForAnotherCluster, true,
			"the provider's offer is for cluster %q, this cluster is %q: the credentials in %s belong to another consumer",
			o.offer.consumerClusterID, o.localClusterID, o.secretRef)
	case !o.offer.ready:
		return fail(ReasonOfferNotReady, false, "the provider's ResourceOffer for this cluster is not Ready yet")
	case o.nodeHealth == nil:
		return fail(ReasonVirtualNodeNotReady, false, "virtual node %s is being created", o.nodeName)
	case !o.nodeHealth.Ready:
		return fail(ReasonVirtualNodeNotReady, false, "virtual node %s is NotReady: %s", o.nodeName, o.nodeHealth.Message)
	case o.network != nil && o.network.Phase != fabric.PhaseConnected:
		// Pods would run but not reach each other: not Ready, and the
		// reason is the fabric's, naming what to fix.
		s.outgoing = discoveryv1alpha1.PeeringConditionStatusEstablished
		return fail(o.network.Reason, false, "virtual node %s is Ready, the network is %s: %s", o.nodeName, o.network.Phase, o.network.Message)
	}
	s.outgoing, s.ready, s.reason = discoveryv1alpha1.PeeringConditionStatusEstablished, true, discoveryv1alpha1.PeeringEstablishedReason
	s.message = fmt.Sprintf("virtual node %s offers %s", o.nodeName, formatResources(o.offer.resources))
	if o.network != nil {
		s.message += fmt.Sprintf("; network connected, round trip %s", o.network.Latency)
	}
	return s
}

func remoteFailureState(s peeringState, o observation) peeringState {
	s.reason = discoveryv1alpha1.APIServerUnreachableReason
	switch classifyRemoteError(o.remoteErr) {
	case failureUnauthorized:
		s.auth, s.reason = discoveryv1alpha1.PeeringConditionStatusDenied, discoveryv1alpha1.AuthenticationFailedReason
		s.message = fmt.Sprintf("%s rejected the token in secret %s (401 Unauthorized): re-issue the identity on the provider and let External Secrets refresh the secret", o.server, o.secretRef)
	case failureForbidden:
		s.auth, s.reason = discoveryv1alpha1.PeeringConditionStatusEstablished, ReasonAuthorizationFailed
		s.message = fmt.Sprintf("%s accepted the identity in %s but forbids reading the offer: %v; check the provider's tenant Role", o.server, o.secretRef, o.remoteErr)
	case failureNoOffer:
		s.auth, s.reason = discoveryv1alpha1.PeeringConditionStatusEstablished, ReasonOfferNotFound
		s.message = fmt.Sprintf("no offer for this cluster at %s: commit a ResourceOffer with spec.clusterId %q in the provider's folder", o.server, o.localClusterID)
	case failureUnreachable:
		s.message = fmt.Sprintf("the provider's API server %s does not answer: %v", o.server, o.remoteErr)
	default:
		s.reason = ReasonRemoteError
		s.message = fmt.Sprintf("reading the offer from %s: %v", o.server, o.remoteErr)
	}
	return s
}

// apply writes the computed state into the object's status.
func (s peeringState) apply(fc *discoveryv1alpha1.ForeignCluster, t metav1.Time) {
	fc.SetPeeringCondition(discoveryv1alpha1.AuthenticationStatusCondition, s.auth, "", "", t)
	fc.SetPeeringCondition(discoveryv1alpha1.OutgoingPeeringCondition, s.outgoing, s.reason, s.message, t)
	fc.SetPeeringCondition(discoveryv1alpha1.IncomingPeeringCondition, s.incoming, "", "", t)
	fc.SetPeeringCondition(discoveryv1alpha1.NetworkStatusCondition, s.network, s.networkReason, s.networkMessage, t)
}

func formatResources(rl corev1.ResourceList) string {
	parts := make([]string, 0, len(rl))
	for name, q := range rl {
		parts = append(parts, fmt.Sprintf("%s=%s", name, q.String()))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
