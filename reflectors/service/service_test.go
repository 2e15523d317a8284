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

package service

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
)

func nodePortService(annotations map[string]string) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "liqo-demo", Annotations: annotations},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, ClusterIP: "10.96.0.10", ClusterIPs: []string{"10.96.0.10"},
			Selector: map[string]string{"app": "web"}, LoadBalancerIP: "1.2.3.4",
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, NodePort: 30080}}},
	}
}

func TestTranslateLeavesAllocatedAddressesAndPortsToTheProvider(t *testing.T) {
	g := NewWithT(t)
	got := Translate(nodePortService(nil), "liqo-demo-rome", reflectiontest.Milan()).(*corev1.Service)
	g.Expect(got.Namespace).To(Equal("liqo-demo-rome"))
	g.Expect(got.Spec.ClusterIP).To(BeEmpty())
	g.Expect(got.Spec.ClusterIPs).To(BeEmpty())
	g.Expect(got.Spec.LoadBalancerIP).To(BeEmpty())
	g.Expect(got.Spec.Ports[0].NodePort).To(BeZero())
	g.Expect(got.Spec.Selector).To(HaveKeyWithValue("app", "web"), "the provider's EndpointSlice controller lists the pods offloaded there")
}

func TestTranslateKeepsNodePortsWhenForced(t *testing.T) {
	g := NewWithT(t)
	got := Translate(nodePortService(map[string]string{"liqo.io/force-remote-node-port": "true"}), "ns", reflectiontest.Milan()).(*corev1.Service)
	g.Expect(got.Spec.Ports[0].NodePort).To(Equal(int32(30080)))
	g.Expect(got.Spec.ClusterIP).To(BeEmpty())
}

func TestTranslateKeepsAHeadlessServiceHeadless(t *testing.T) {
	g := NewWithT(t)
	s := nodePortService(nil)
	s.Spec.Type, s.Spec.ClusterIP, s.Spec.ClusterIPs = corev1.ServiceTypeClusterIP, corev1.ClusterIPNone, []string{corev1.ClusterIPNone}
	got := Translate(s, "ns", reflectiontest.Milan()).(*corev1.Service)
	g.Expect(got.Spec.ClusterIP).To(Equal(corev1.ClusterIPNone))
}

func TestMergeKeepsWhatTheProviderAllocated(t *testing.T) {
	g := NewWithT(t)
	desired := Translate(nodePortService(nil), "ns", reflectiontest.Milan()).(*corev1.Service)
	existing := desired.DeepCopy()
	existing.Spec.ClusterIP, existing.Spec.ClusterIPs = "10.200.0.7", []string{"10.200.0.7"}
	existing.Spec.Ports[0].NodePort = 31999
	g.Expect(Merge(desired, existing)).To(BeFalse(), "an allocation by the provider is not drift")

	changed := Translate(nodePortService(nil), "ns", reflectiontest.Milan()).(*corev1.Service)
	changed.Spec.Ports[0].Port = 8080
	g.Expect(Merge(changed, existing)).To(BeTrue())
	g.Expect(existing.Spec.ClusterIP).To(Equal("10.200.0.7"))
	g.Expect(existing.Spec.Ports[0].Port).To(Equal(int32(8080)))
}

func TestTranslateSendsNoExternalIPs(t *testing.T) {
	g := NewWithT(t)
	local := nodePortService(nil)
	local.Spec.ExternalIPs = []string{"203.0.113.7"}
	got := Translate(local, "liqo-demo-rome", reflectiontest.Milan()).(*corev1.Service)
	g.Expect(got.Spec.ExternalIPs).To(BeEmpty(), "the provider's twin webhook refuses them")
	g.Expect(got.Spec.Ports).To(HaveLen(1), "the rest of the Service still goes")
	g.Expect(local.Spec.ExternalIPs).To(ConsistOf("203.0.113.7"), "the local object is not touched")

	clusterIP := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "public", Namespace: "liqo-demo"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ExternalIPs: []string{"203.0.113.8"},
			ExternalTrafficPolicy: corev1.ServiceExternalTrafficPolicyCluster, Ports: []corev1.ServicePort{{Port: 80}}}}
	got = Translate(clusterIP, "liqo-demo-rome", reflectiontest.Milan()).(*corev1.Service)
	g.Expect(got.Spec.ExternalTrafficPolicy).To(BeEmpty(), "the API server defaults it because of the externalIPs and refuses it without them")
}

func TestTranslateSkipsAnExternalNameInsideTheCluster(t *testing.T) {
	g := NewWithT(t)
	external := func(host string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "liqo-demo"},
			Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: host}}
	}
	g.Expect(Translate(external("vault.vault.svc.cluster.local"), "liqo-demo-rome", reflectiontest.Milan())).To(BeNil())
	g.Expect(Translate(external("db.example.com"), "liqo-demo-rome", reflectiontest.Milan())).NotTo(BeNil())
}
