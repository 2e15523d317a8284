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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/network/fabric"
	"github.com/spillway-dev/spillway/peering/virtualnode"
)

type obsOpt func(*observation)

// newObservation is a healthy, established peering; options break one thing.
func newObservation(opts ...obsOpt) observation {
	o := observation{
		outgoingEnabled: true, secretRef: "liqo/milan-credentials", server: "https://127.0.0.1:17022",
		localClusterID: "rome-id", specClusterID: "milan-id", nodeName: "liqo-milan",
		offer: &remoteOffer{providerClusterID: "milan-id", consumerClusterID: "rome-id", ready: true,
			resources: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7200m")}},
		nodeHealth: &virtualnode.Health{Ready: true},
	}
	for _, f := range opts {
		f(&o)
	}
	return o
}

func withOutgoingDisabled(o *observation) { o.outgoingEnabled = false; o.nodeName = "" }
func withSecretMissing(o *observation)    { o.secretMissing = true; o.offer = nil; o.nodeName = "" }
func withRemoteErr(err error) obsOpt {
	return func(o *observation) { o.remoteErr = err; o.offer = nil }
}
func withProviderID(id string) obsOpt { return func(o *observation) { o.offer.providerClusterID = id } }
func withNodeDown(o *observation) {
	o.nodeHealth = &virtualnode.Health{Ready: false, Message: "3 consecutive"}
}
func withNoNode(o *observation) { o.nodeName = "" }
func withPodsToEvict(n int) obsOpt {
	return func(o *observation) { o.unpeering.podsToEvict = n; o.outgoingEnabled = false }
}
func withTwinsHeld(names ...string) obsOpt {
	return func(o *observation) { o.unpeering.twinRequests = names; o.outgoingEnabled = false }
}
func withProviderAway(o *observation) {
	o.unpeering.providerErr = errors.New("dial tcp: connection refused")
	o.outgoingEnabled = false
}
func withIncoming(o *observation) { o.incoming = true }

var unauthorized = apierrors.NewUnauthorized("invalid bearer token")

func TestComputeState(t *testing.T) {
	for _, tc := range []struct {
		name          string
		obs           observation
		ready         bool
		stalled       bool
		reason        string
		auth, out     discoveryv1alpha1.PeeringConditionStatus
		messageSubstr string
	}{
		{name: "established", obs: newObservation(), ready: true, reason: discoveryv1alpha1.PeeringEstablishedReason,
			auth: "Established", out: "Established", messageSubstr: "cpu=7200m"},
		{name: "outgoing disabled", obs: newObservation(withOutgoingDisabled), ready: true, reason: discoveryv1alpha1.PeeringDisabledReason,
			auth: "None", out: "None", messageSubstr: "spec.outgoingPeeringEnabled"},
		{name: "unpeering", obs: newObservation(withPodsToEvict(2)), reason: ReasonUnpeering, auth: "None", out: "Disconnecting", messageSubstr: "2 pod(s)"},
		{name: "unpeering waits for the twins", obs: newObservation(withTwinsHeld("liqo-twin-a", "liqo-twin-b")), reason: ReasonUnpeering, auth: "None",
			out: "Disconnecting", messageSubstr: "remove 2 twin namespace(s) this cluster requested (requests liqo-twin-a, liqo-twin-b)"},
		{name: "unpeering with the provider away", obs: newObservation(withProviderAway), reason: ReasonUnpeering, auth: "None",
			out: "Disconnecting", messageSubstr: "cannot reach the provider to release the twin namespaces this cluster requested there, so they and the peering stay: dial tcp"},
		{name: "secret missing", obs: newObservation(withSecretMissing), reason: discoveryv1alpha1.CredentialsNotFoundReason,
			auth: "Pending", out: "Pending", messageSubstr: "liqo/milan-credentials"},
		{name: "bad token", obs: newObservation(withRemoteErr(unauthorized), withNoNode), reason: discoveryv1alpha1.AuthenticationFailedReason,
			auth: "Denied", out: "Pending", messageSubstr: "re-issue"},
		{name: "no offer", obs: newObservation(withRemoteErr(apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "liqo-offer")), withNoNode),
			reason: ReasonOfferNotFound, auth: "Established", out: "Pending", messageSubstr: `spec.clusterId "rome-id"`},
		{name: "unreachable keeps an existing peering", obs: newObservation(withRemoteErr(errors.New("dial tcp: connection refused"))),
			reason: discoveryv1alpha1.APIServerUnreachableReason, auth: "Pending", out: "Established", messageSubstr: "does not answer"},
		{name: "wrong cluster id", obs: newObservation(withProviderID("paris-id"), withNoNode), stalled: true, reason: ReasonClusterIDMismatch,
			auth: "Established", out: "Denied", messageSubstr: `spec.clusterIdentity.clusterID is "milan-id" but the cluster at https://127.0.0.1:17022 reports "paris-id"`},
		{name: "node not ready", obs: newObservation(withNodeDown), reason: ReasonVirtualNodeNotReady, auth: "Established", out: "Established",
			messageSubstr: "NotReady"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := computeState(tc.obs)
			g.Expect(s.ready).To(Equal(tc.ready))
			g.Expect(s.stalled).To(Equal(tc.stalled))
			g.Expect(s.reason).To(Equal(tc.reason))
			g.Expect(s.auth).To(Equal(tc.auth))
			g.Expect(s.outgoing).To(Equal(tc.out))
			g.Expect(s.message).To(ContainSubstring(tc.messageSubstr))
		})
	}
}

func TestComputeStateReportsIncomingIndependently(t *testing.T) {
	g := NewWithT(t)
	g.Expect(computeState(newObservation()).incoming).To(Equal(discoveryv1alpha1.PeeringConditionStatusNone))
	g.Expect(computeState(newObservation(withIncoming, withSecretMissing)).incoming).To(Equal(discoveryv1alpha1.PeeringConditionStatusEstablished))
}

func TestComputeStateHoldsReadyUntilTheNetworkIsConnected(t *testing.T) {
	g := NewWithT(t)
	for _, tc := range []struct {
		st      fabric.State
		network discoveryv1alpha1.PeeringConditionStatus
		ready   bool
	}{
		{fabric.State{Phase: fabric.PhasePending, Reason: fabric.ReasonWaitingForPeer}, discoveryv1alpha1.PeeringConditionStatusPending, false},
		{fabric.State{Phase: fabric.PhaseConnecting, Reason: fabric.ReasonTunnelConnecting}, discoveryv1alpha1.PeeringConditionStatusPending, false},
		{fabric.State{Phase: fabric.PhaseError, Reason: fabric.ReasonInvalidPeerParameters, Message: `key "publicKey" decodes to 5 bytes`},
			discoveryv1alpha1.PeeringConditionStatusError, false},
		{fabric.State{Phase: fabric.PhaseConnected, Reason: fabric.ReasonTunnelConnected}, discoveryv1alpha1.PeeringConditionStatusEstablished, true},
	} {
		st := tc.st
		s := computeState(newObservation(func(o *observation) { o.network = &st }))
		g.Expect(s.network).To(Equal(tc.network), "phase %s", st.Phase)
		g.Expect(s.ready).To(Equal(tc.ready), "phase %s", st.Phase)
		g.Expect(s.outgoing).To(Equal(discoveryv1alpha1.PeeringConditionStatusEstablished), "the virtual node is up whatever the network")
		if !tc.ready {
			g.Expect(s.reason).To(Equal(st.Reason))
			g.Expect(s.message).To(ContainSubstring(st.Message))
		}
	}
	// No fabric: NetworkStatus None and Ready as before.
	s := computeState(newObservation())
	g.Expect(s.network).To(Equal(discoveryv1alpha1.PeeringConditionStatusNone))
	g.Expect(s.ready).To(BeTrue())
}
