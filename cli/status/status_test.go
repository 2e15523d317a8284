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

package status

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

const (
	milanID  = "8b1d6f03-c2e5-4a97-9f48-d13b7e6a2c05"
	naplesID = "edc8c24a-4c11-48b8-8b0e-2a95cf7464af"
)

type fcOpt func(*discoveryv1alpha1.ForeignCluster)

func newForeignCluster(name, id string, opts ...fcOpt) *discoveryv1alpha1.ForeignCluster {
	fc := &discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: discoveryv1alpha1.ForeignClusterSpec{ClusterIdentity: discoveryv1alpha1.ClusterIdentity{ClusterID: id, ClusterName: name}}}
	for _, o := range opts {
		o(fc)
	}
	return fc
}

func withPeering(t discoveryv1alpha1.PeeringConditionType, s discoveryv1alpha1.PeeringConditionStatus, reason, msg string) fcOpt {
	return func(fc *discoveryv1alpha1.ForeignCluster) { fc.SetPeeringCondition(t, s, reason, msg, metav1.Now()) }
}

func withReady(status metav1.ConditionStatus, reason, msg string) fcOpt {
	return func(fc *discoveryv1alpha1.ForeignCluster) {
		fc.Status.Conditions = append(fc.Status.Conditions, metav1.Condition{Type: "Ready", Status: status, Reason: reason, Message: msg})
	}
}

func virtualNode(name, id string, ready corev1.ConditionStatus, reason, msg string) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			discoveryv1alpha1.TypeLabel: discoveryv1alpha1.TypeVirtualNode, discoveryv1alpha1.RemoteClusterIDLabel: id}},
		Status: corev1.NodeStatus{
			Allocatable: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7200m"), corev1.ResourceMemory: resource.MustParse("12Gi")},
			Conditions:  []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready, Reason: reason, Message: msg}},
		},
	}
}

func offloading(ns string, phase offloadingv1alpha1.OffloadingPhase, ready metav1.Condition, remote map[string]offloadingv1alpha1.RemoteNamespaceConditions) *offloadingv1alpha1.NamespaceOffloading {
	return &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: ns},
		Spec:       offloadingv1alpha1.NamespaceOffloadingSpec{PodOffloadingStrategy: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy},
		Status: offloadingv1alpha1.NamespaceOffloadingStatus{OffloadingPhase: phase, RemoteNamespaceName: ns + "-rome-e5c742",
			Conditions: []metav1.Condition{ready}, RemoteNamespacesConditions: remote},
	}
}

func fleet() client.Client {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(discoveryv1alpha1.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	return fake.NewClientBuilder().WithScheme(s).WithObjects(
		newForeignCluster("milan", milanID,
			withPeering(discoveryv1alpha1.OutgoingPeeringCondition, discoveryv1alpha1.PeeringConditionStatusEstablished, "", ""),
			withPeering(discoveryv1alpha1.NetworkStatusCondition, discoveryv1alpha1.PeeringConditionStatusEstablished, "TunnelConnected", ""),
			withPeering(discoveryv1alpha1.AuthenticationStatusCondition, discoveryv1alpha1.PeeringConditionStatusEstablished, "", ""),
			withReady(metav1.ConditionTrue, "PeeringEstablished", "")),
		newForeignCluster("naples", naplesID,
			withPeering(discoveryv1alpha1.OutgoingPeeringCondition, discoveryv1alpha1.PeeringConditionStatusPending, "", ""),
			withPeering(discoveryv1alpha1.AuthenticationStatusCondition, discoveryv1alpha1.PeeringConditionStatusError, "AuthenticationFailed", "the token was rejected"),
			withReady(metav1.ConditionFalse, "CredentialsNotFound", "Secret liqo/naples-credentials not found")),
		virtualNode("liqo-milan", milanID, corev1.ConditionTrue, "RemoteClusterReady", ""),
		virtualNode("liqo-naples", naplesID, corev1.ConditionFalse, "RemoteClusterUnreachable", "the provider's API server did not answer"),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-worker"}},
		offloading("liqo-demo", offloadingv1alpha1.SomeFailedOffloadingPhase,
			metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse, Reason: "SomeFailed", Message: "1 of 2 remote namespaces failed"},
			map[string]offloadingv1alpha1.RemoteNamespaceConditions{
				milanID: {{Type: "OffloadingRequired", Status: metav1.ConditionTrue, Reason: "ClusterSelected"},
					{Type: "Ready", Status: metav1.ConditionTrue, Reason: "NamespaceCreated"}},
				naplesID: {{Type: "OffloadingRequired", Status: metav1.ConditionTrue, Reason: "ClusterSelected"},
					{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NamespaceNameConflict", Message: "liqo-demo-rome-e5c742 exists and is not ours"}},
			}),
		offloading("web", offloadingv1alpha1.ReadyOffloadingPhase,
			metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready"},
			map[string]offloadingv1alpha1.RemoteNamespaceConditions{
				milanID: {{Type: "Ready", Status: metav1.ConditionTrue, Reason: "NamespaceCreated"}},
			}),
	).Build()
}

func render(t *testing.T, peer string) (string, error) {
	t.Helper()
	s, err := Collect(context.Background(), fleet(), peer)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := s.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	return b.String(), nil
}

func TestStatusShowsEveryPeeringWithTheReasonForWhatIsNotReady(t *testing.T) {
	g := NewWithT(t)
	out, err := render(t, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(`Peerings
  NAME    CLUSTER ID                            OUTGOING     INCOMING  NETWORK      AUTH         READY
  milan   8b1d6f03-c2e5-4a97-9f48-d13b7e6a2c05  Established  None      Established  Established  True
  naples  edc8c24a-4c11-48b8-8b0e-2a95cf7464af  Pending      None      None         Error        False
    not Ready: CredentialsNotFound: Secret liqo/naples-credentials not found
    AuthenticationStatus Error: AuthenticationFailed: the token was rejected

Virtual nodes
  NAME         PEER    READY  CPU    MEMORY
  liqo-milan   milan   True   7200m  12Gi
  liqo-naples  naples  False  7200m  12Gi
    not Ready: RemoteClusterUnreachable: the provider's API server did not answer

Offloaded namespaces
  NAMESPACE  PHASE       PODS            REMOTE NAMESPACE       READY
  liqo-demo  SomeFailed  LocalAndRemote  liqo-demo-rome-e5c742  False
    not Ready: SomeFailed: 1 of 2 remote namespaces failed
    milan: OffloadingRequired=True (ClusterSelected), Ready=True (NamespaceCreated)
    naples: OffloadingRequired=True (ClusterSelected), Ready=False (NamespaceNameConflict): liqo-demo-rome-e5c742 exists and is not ours
  web        Ready       LocalAndRemote  web-rome-e5c742        True
    milan: Ready=True (NamespaceCreated)
`))
}

func TestStatusPeerNarrowsToOnePeer(t *testing.T) {
	g := NewWithT(t)
	out, err := render(t, "naples")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(ContainSubstring("  naples  edc8c24a"))
	g.Expect(out).NotTo(ContainSubstring("milan"))
	g.Expect(out).To(ContainSubstring("liqo-naples"))
	g.Expect(out).To(ContainSubstring("  liqo-demo  SomeFailed"))
	g.Expect(out).NotTo(ContainSubstring("  web "), "web is not offloaded to naples")
}

func TestStatusPeerNamesAMissingPeer(t *testing.T) {
	g := NewWithT(t)
	_, err := render(t, "florence")
	g.Expect(err).To(MatchError("ForeignCluster florence not found: run spillway status to list the peers"))
}

func TestStatusOfAClusterWithoutPeerings(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(discoveryv1alpha1.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	st, err := Collect(context.Background(), fake.NewClientBuilder().WithScheme(s).Build(), "")
	g.Expect(err).NotTo(HaveOccurred())
	var b strings.Builder
	g.Expect(st.WriteText(&b)).To(Succeed())
	g.Expect(b.String()).To(Equal("Peerings\n  none: no ForeignCluster in this cluster\n\nVirtual nodes\n  none: no outgoing peering has a virtual node yet\n\nOffloaded namespaces\n  none\n"))
}
