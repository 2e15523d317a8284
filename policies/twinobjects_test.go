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
	"net/netip"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func twinService(mutate func(*corev1.Service)) *corev1.Service {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}
	mutate(svc)
	return svc
}

func TestTwinServiceProblem(t *testing.T) {
	g := NewWithT(t)
	g.Expect(TwinServiceProblem(twinService(func(*corev1.Service) {}))).To(BeEmpty())
	g.Expect(TwinServiceProblem(twinService(func(s *corev1.Service) { s.Spec.ExternalIPs = []string{"8.8.8.8"} }))).
		To(ContainSubstring("Service shop/web sets spec.externalIPs [8.8.8.8]"))
	for host, refused := range map[string]bool{"db.example.com": false, "api.stripe.com.": false,
		"kubernetes.default.svc.cluster.local": true, "vault.vault.svc": true, "db": true, "10.0.0.1": true, "localhost": true,
		"metadata.google.internal": true, "printer.local": true, "": true} {
		got := TwinServiceProblem(twinService(func(s *corev1.Service) { s.Spec.Type, s.Spec.ExternalName = corev1.ServiceTypeExternalName, host }))
		if refused {
			g.Expect(got).To(ContainSubstring("spec.externalName"), host)
		} else {
			g.Expect(got).To(BeEmpty(), host)
		}
	}
}

func slice(eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-abc"}, Endpoints: eps}
}

func TestTwinEndpointSliceProblem(t *testing.T) {
	g := NewWithT(t)
	provider := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12"), netip.MustParsePrefix("10.244.0.0/16")}
	consumerPod := discoveryv1.Endpoint{Addresses: []string{"10.70.1.5"}, TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: "shop", Name: "web-1"}}
	g.Expect(TwinEndpointSliceProblem(slice(consumerPod), provider)).To(BeEmpty())
	other := consumerPod
	other.TargetRef = &corev1.ObjectReference{Kind: "Pod", Namespace: "kube-system", Name: "coredns"}
	g.Expect(TwinEndpointSliceProblem(slice(other), provider)).To(ContainSubstring(`endpoints[0].targetRef names namespace "kube-system"`))
	for addr, why := range map[string]string{"10.96.0.1": "inside the provider's own range 10.96.0.0/12", "127.0.0.1": "loopback",
		"169.254.169.254": "link-local", "0.0.0.0": "unspecified", "::ffff:10.244.3.3": "10.244.0.0/16", "fe80::1": "link-local"} {
		ep := discoveryv1.Endpoint{Addresses: []string{addr}}
		g.Expect(TwinEndpointSliceProblem(slice(consumerPod, ep), provider)).To(ContainSubstring("endpoints[1].addresses has "+addr), addr)
		g.Expect(TwinEndpointSliceProblem(slice(consumerPod, ep), provider)).To(ContainSubstring(why), addr)
	}
	g.Expect(TwinEndpointSliceProblem(slice(discoveryv1.Endpoint{Addresses: []string{"10.96.0.1"}}), nil)).To(BeEmpty(),
		"without known ranges, only addresses that are never a pod's are refused")
}

func ingress(annotations map[string]string) *networkingv1.Ingress {
	return &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: annotations}}
}

func TestTwinIngressProblem(t *testing.T) {
	g := NewWithT(t)
	for annotations, want := range map[*map[string]string]string{
		{"nginx.ingress.kubernetes.io/rewrite-target": "/"}:                                    "",
		{"nginx.ingress.kubernetes.io/auth-tls-secret": "shop/ca"}:                             "",
		{"nginx.ingress.kubernetes.io/auth-url": "https://auth.example.com/check"}:             "",
		{"nginx.ingress.kubernetes.io/configuration-snippet": "proxy_pass http://10.0.0.1;"}:   "configuration snippets",
		{"nginx.ingress.kubernetes.io/server-snippets": "x"}:                                   "configuration snippets",
		{"haproxy.org/backend-config-snippet": "x"}:                                            "configuration snippets",
		{"nginx.ingress.kubernetes.io/auth-tls-secret": "kube-system/ca"}:                      `names namespace "kube-system"`,
		{"nginx.ingress.kubernetes.io/proxy-ssl-secret": "liqo/spillway-webhook-tls"}:          `names namespace "liqo"`,
		{"nginx.ingress.kubernetes.io/auth-url": "http://vault.vault.svc.cluster.local:8200/"}: "points inside the provider",
		{"nginx.ingress.kubernetes.io/auth-signin": "http://169.254.169.254/latest/meta-data"}: "points inside the provider",
	} {
		got := TwinIngressProblem(ingress(*annotations))
		if want == "" {
			g.Expect(got).To(BeEmpty(), "%v", *annotations)
		} else {
			g.Expect(got).To(ContainSubstring(want), "%v", *annotations)
		}
	}
}

// FuzzInternalHost: host names come from consumers; none panics, and an IP
// literal is always internal.
func FuzzInternalHost(f *testing.F) {
	for _, s := range []string{"db.example.com", "vault.vault.svc", "10.0.0.1", "[::1]", "", ".", "a..b", "LOCALHOST."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		if _, err := netip.ParseAddr(host); err == nil && !internalHost(host) {
			t.Fatalf("IP literal %q judged outside", host)
		}
	})
}
