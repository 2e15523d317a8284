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

package endpointslice

import (
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/spillway-dev/spillway/network"
	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
)

func slice(endpoints ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "web-abcde", Namespace: "liqo-demo", Labels: map[string]string{
			discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Service", Name: "web", UID: "local-uid"}}},
		AddressType: discoveryv1.AddressTypeIPv4, Endpoints: endpoints,
		Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To(int32(80))}},
	}
}

func endpoint(ip, node string) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{ip}, NodeName: ptr.To(node), Zone: ptr.To("rome-a"),
		Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: "web-1", Namespace: "liqo-demo", UID: "pod-uid"}}
}

func TestTranslateCarriesOnlyTheEndpointsTheProviderLacks(t *testing.T) {
	g := NewWithT(t)
	got := Translate(slice(endpoint("10.244.0.5", "rome-worker-0"), endpoint("10.250.0.9", "liqo-milan")), "liqo-demo-rome", reflectiontest.Milan()).(*discoveryv1.EndpointSlice)
	g.Expect(got.Endpoints).To(HaveLen(1), "the pod on liqo-milan is already in milan's own slice")
	ep := got.Endpoints[0]
	g.Expect(ep.Addresses).To(Equal([]string{"10.244.0.5"}))
	g.Expect(ep.NodeName).To(BeNil(), "rome's nodes do not exist on milan")
	g.Expect(ep.Zone).To(BeNil())
	g.Expect(ep.TargetRef.UID).To(BeEmpty())
	g.Expect(got.OwnerReferences).To(BeEmpty(), "an owner UID of rome's would make milan's garbage collector delete the copy")
	g.Expect(got.Labels).To(HaveKeyWithValue(discoveryv1.LabelManagedBy, ManagedBy))
	g.Expect(got.Labels).To(HaveKeyWithValue(discoveryv1.LabelServiceName, "web"))
}

func TestTranslateMapsAddressesThroughTheFabric(t *testing.T) {
	g := NewWithT(t)
	milan := reflectiontest.Milan()
	milan.Network.Registry = network.NewRegistry()
	milan.Network.Registry.SetPeerView("milan-id", netipPrefix("10.244.0.0/16"), netipPrefix("10.71.0.0/16"))
	got := Translate(slice(endpoint("10.244.3.5", "rome-worker-0")), "ns", milan).(*discoveryv1.EndpointSlice)
	g.Expect(got.Endpoints[0].Addresses).To(Equal([]string{"10.71.3.5"}))
}

func TestTranslateReflectsNothingWithoutIPsOrEndpoints(t *testing.T) {
	g := NewWithT(t)
	noIPs := reflectiontest.Milan()
	noIPs.Network.ReflectIPs = false
	g.Expect(Translate(slice(endpoint("10.244.0.5", "rome-worker-0")), "ns", noIPs)).To(BeNil(), "reflectIPs=false leaves EndpointSlices unpopulated")
	g.Expect(Translate(slice(endpoint("10.250.0.9", "liqo-milan")), "ns", reflectiontest.Milan())).To(BeNil())
	orphan := slice(endpoint("10.244.0.5", "rome-worker-0"))
	delete(orphan.Labels, discoveryv1.LabelServiceName)
	g.Expect(Translate(orphan, "ns", reflectiontest.Milan())).To(BeNil())
}

func TestMergeReportsEndpointChanges(t *testing.T) {
	g := NewWithT(t)
	a := Translate(slice(endpoint("10.244.0.5", "rome-worker-0")), "ns", reflectiontest.Milan())
	existing := a.DeepCopyObject().(*discoveryv1.EndpointSlice)
	g.Expect(Merge(a, existing)).To(BeFalse())
	b := Translate(slice(endpoint("10.244.0.5", "rome-worker-0"), endpoint("10.244.0.6", "rome-worker-1")), "ns", reflectiontest.Milan())
	g.Expect(Merge(b, existing)).To(BeTrue())
	g.Expect(existing.Endpoints).To(HaveLen(2))
}

func netipPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }
