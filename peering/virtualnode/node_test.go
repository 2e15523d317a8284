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

package virtualnode

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func spec() Spec {
	return Spec{Name: virtualkubeletv1alpha1.VirtualNodeName("milan"), RemoteClusterID: "8b1d", Labels: map[string]string{"topology.liqo.io/region": "north", virtualkubeletv1alpha1.TypeLabel: "physical"},
		Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("7200m")}, KubeletVersion: "v1.36.4", Address: "127.0.0.1", Port: 10250}
}

func TestNodeForCarriesLiqoLabelsTaintAndOffer(t *testing.T) {
	g := NewWithT(t)
	n := NodeFor(spec(), Health{Ready: true})
	g.Expect(n.Name).To(Equal("liqo-milan"))
	g.Expect(n.Labels).To(HaveKeyWithValue("liqo.io/type", "virtual-node"), "a provider label must not override liqo.io/type")
	g.Expect(n.Labels).To(HaveKeyWithValue("liqo.io/remote-cluster-id", "8b1d"))
	g.Expect(n.Labels).To(HaveKeyWithValue("topology.liqo.io/region", "north"))
	g.Expect(n.Labels).To(HaveKey("node-role.kubernetes.io/agent"))
	g.Expect(n.Spec.Taints).To(ConsistOf(corev1.Taint{Key: "virtual-node.liqo.io/not-allowed", Value: "true", Effect: corev1.TaintEffectNoExecute}))
	g.Expect(n.Status.Allocatable.Cpu().MilliValue()).To(Equal(int64(7200)))
	g.Expect(n.Status.Capacity.Cpu().MilliValue()).To(Equal(int64(7200)))
	g.Expect(n.Status.Conditions[0].Type).To(Equal(corev1.NodeReady))
	g.Expect(n.Status.Conditions[0].Status).To(Equal(corev1.ConditionTrue))

	down := NodeFor(spec(), Health{Ready: false, Message: "boom"})
	g.Expect(down.Status.Conditions[0].Status).To(Equal(corev1.ConditionFalse))
	g.Expect(down.Status.Conditions[0].Reason).To(Equal(ReasonRemoteUnreachable))
}

func TestNextHealthToleratesAFewFailuresThenHealsAtOnce(t *testing.T) {
	g := NewWithT(t)
	boom := errors.New("connection refused")
	failures := 0
	h := nextHealth(Health{}, &failures, boom, 3)
	g.Expect(h.Ready).To(BeFalse(), "a provider never reached is not Ready")
	h = nextHealth(h, &failures, nil, 3)
	g.Expect(h.Ready).To(BeTrue())
	h = nextHealth(h, &failures, boom, 3)
	h = nextHealth(h, &failures, boom, 3)
	g.Expect(h.Ready).To(BeTrue(), "two failures are tolerated")
	h = nextHealth(h, &failures, boom, 3)
	g.Expect(h.Ready).To(BeFalse())
	g.Expect(h.Message).To(ContainSubstring("3 consecutive"))
	g.Expect(h.Message).To(ContainSubstring("connection refused"))
	h = nextHealth(h, &failures, nil, 3)
	g.Expect(h.Ready).To(BeTrue())
}

func TestNodeAdvertisesOnlyAnAddressTheAPIServerCanDial(t *testing.T) {
	g := NewWithT(t)
	n := NodeFor(spec(), Health{Ready: true})
	g.Expect(n.Status.Addresses).To(ConsistOf(corev1.NodeAddress{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}),
		"a Hostname address (the node name) would be dialled first by the API server and resolves nowhere")
	g.Expect(n.Status.DaemonEndpoints.KubeletEndpoint.Port).To(Equal(int32(10250)))
}
