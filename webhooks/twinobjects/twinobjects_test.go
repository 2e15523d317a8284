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

package twinobjects

import (
	"context"
	"encoding/json"
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

const rome = "system:serviceaccount:liqo-tenant-rome:liqo-consumer"

func request(user, kind string, obj runtime.Object) admission.Request {
	raw, _ := json.Marshal(obj)
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Create, Namespace: "shop",
		Kind: metav1.GroupVersionKind{Kind: kind}, UserInfo: authenticationv1.UserInfo{Username: user}, Object: runtime.RawExtension{Raw: raw}}}
}

func validator() *Validator {
	return &Validator{Decoder: admission.NewDecoder(clientgoscheme.Scheme), ProviderRanges: []netip.Prefix{netip.MustParsePrefix("10.244.0.0/16")}}
}

func TestAConsumersServiceWithExternalIPsIsDenied(t *testing.T) {
	g := NewWithT(t)
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{ExternalIPs: []string{"1.2.3.4"},
		Ports: []corev1.ServicePort{{Port: 80}}}}
	resp := validator().Handle(context.Background(), request(rome, "Service", svc))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring("Service shop/web sets spec.externalIPs"))
	g.Expect(validator().Handle(context.Background(), request("system:admin", "Service", svc)).Allowed).To(BeTrue(),
		"the provider's own users are not judged")
	svc.Spec.ExternalIPs = nil
	g.Expect(validator().Handle(context.Background(), request(rome, "Service", svc)).Allowed).To(BeTrue())
}

func TestAConsumersEndpointSliceIntoTheProvidersPodsIsDenied(t *testing.T) {
	g := NewWithT(t)
	es := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-x"}, AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.0.9"}}}}
	resp := validator().Handle(context.Background(), request(rome, "EndpointSlice", es))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring("inside the provider's own range 10.244.0.0/16"))
	g.Expect(validator().Handle(context.Background(), request("system:serviceaccount:kube-system:endpointslice-controller", "EndpointSlice", es)).Allowed).
		To(BeTrue(), "the provider's EndpointSlice controller lists its own pods in twins")
}

func TestAConsumersIngressWithASnippetIsDenied(t *testing.T) {
	g := NewWithT(t)
	ing := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web",
		Annotations: map[string]string{"nginx.ingress.kubernetes.io/server-snippet": "location / { proxy_pass http://10.0.0.1; }"}}}
	resp := validator().Handle(context.Background(), request(rome, "Ingress", ing))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring("nginx.ingress.kubernetes.io/server-snippet"))
}

func TestIsConsumer(t *testing.T) {
	g := NewWithT(t)
	g.Expect(IsConsumer(rome)).To(BeTrue())
	g.Expect(IsConsumer("system:serviceaccount:liqo:spillway-controller")).To(BeFalse())
	g.Expect(IsConsumer("liqo-tenant-rome")).To(BeFalse())
}
