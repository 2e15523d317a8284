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
	"fmt"
	"net/netip"
	"net/url"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// What a consumer may write into its twin namespaces on a provider. A twin
// is the consumer's, but the provider's network, ingress controller and DNS
// are not: a Service, EndpointSlice or Ingress must not steer the provider's
// traffic, or its ingress controller, to anything outside the twin
// (CVE-2020-8554 through externalIPs, CVE-2021-25740 through endpoints and
// ExternalName, ingress-nginx snippets). Each function returns why an object
// is refused, naming the field and the fix, or "" when it may be written.
// The provider's twin webhook and the consumer's reflectors call the same
// functions, so what the consumer sends is what the provider accepts.

// TwinServiceProblem refuses externalIPs, which make every node of the
// provider capture traffic for those addresses, and an ExternalName that
// names something inside the provider (an in-cluster DNS name, localhost or
// an IP literal), which an ingress controller would proxy to. ExternalNames
// of outside hosts are allowed: they only spell a DNS CNAME, which the
// consumer's pods could resolve themselves.
func TwinServiceProblem(svc *corev1.Service) string {
	if len(svc.Spec.ExternalIPs) > 0 {
		return fmt.Sprintf("Service %s/%s sets spec.externalIPs %v: a consumer may not make the provider's nodes capture traffic for addresses; remove spec.externalIPs (or mark the Service liqo.io/skip-reflection)",
			svc.Namespace, svc.Name, svc.Spec.ExternalIPs)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName && internalHost(svc.Spec.ExternalName) {
		return fmt.Sprintf("Service %s/%s has spec.externalName %q, a name inside the provider: an ExternalName in a twin may only name an outside host; point it elsewhere (or mark the Service liqo.io/skip-reflection)",
			svc.Namespace, svc.Name, svc.Spec.ExternalName)
	}
	return ""
}

// TwinEndpointSliceProblem refuses endpoints that reach outside the twin:
// a targetRef in another namespace; an address that is never a pod's
// (loopback, link-local, which holds cloud metadata services, unspecified,
// multicast); or an address in one of the provider's own ranges (its pod,
// service and node networks, when the manager knows them), where the
// consumer's pods never are.
func TwinEndpointSliceProblem(slice *discoveryv1.EndpointSlice, providerRanges []netip.Prefix) string {
	for i, ep := range slice.Endpoints {
		if ep.TargetRef != nil && ep.TargetRef.Namespace != "" && ep.TargetRef.Namespace != slice.Namespace {
			return fmt.Sprintf("EndpointSlice %s/%s endpoints[%d].targetRef names namespace %q: an endpoint in a twin may only refer to objects of the twin; drop the targetRef or its namespace",
				slice.Namespace, slice.Name, i, ep.TargetRef.Namespace)
		}
		for _, a := range ep.Addresses {
			if why := forbiddenEndpointAddress(a, providerRanges); why != "" {
				return fmt.Sprintf("EndpointSlice %s/%s endpoints[%d].addresses has %s, %s: endpoints in a twin must be the consumer's pods; remove it",
					slice.Namespace, slice.Name, i, a, why)
			}
		}
	}
	return ""
}

func forbiddenEndpointAddress(s string, providerRanges []netip.Prefix) string {
	a, err := netip.ParseAddr(s)
	if err != nil {
		return "" // FQDN slices and malformed addresses are the API server's to judge
	}
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast():
		return "a link-local address (metadata services live there)"
	case a.IsUnspecified():
		return "the unspecified address"
	case a.IsMulticast():
		return "a multicast address"
	}
	for _, p := range providerRanges {
		if p.Contains(a) {
			return fmt.Sprintf("inside the provider's own range %s", p)
		}
	}
	return ""
}

// ingressPointers are ingress-nginx annotations whose value names an object
// as namespace/name, or a URL the controller calls: each could point the
// provider's ingress controller outside the twin.
var ingressPointers = map[string]bool{
	"auth-tls-secret": true, "proxy-ssl-secret": true, "auth-secret": true, "auth-proxy-set-headers": true,
	"auth-url": true, "auth-signin": true, "default-backend": true, "custom-headers": true,
}

// TwinIngressProblem refuses configuration snippets (any annotation ending
// in -snippet or -snippets: raw controller configuration, which reads any
// Secret the controller can), and ingress-nginx annotations pointing at
// objects in another namespace or at a host inside the provider. Backends
// are Services of the same namespace by the API's design, and ExternalName
// Services are judged by TwinServiceProblem.
func TwinIngressProblem(ing *networkingv1.Ingress) string {
	for key, value := range ing.Annotations {
		_, name, _ := strings.Cut(key, "/")
		if name == "" {
			name = key
		}
		if strings.HasSuffix(name, "-snippet") || strings.HasSuffix(name, "-snippets") {
			return fmt.Sprintf("Ingress %s/%s has annotation %s: configuration snippets are raw ingress-controller configuration and are refused in twins; remove it (or mark the Ingress liqo.io/skip-reflection)",
				ing.Namespace, ing.Name, key)
		}
		if !strings.HasPrefix(key, "nginx.ingress.kubernetes.io/") || !ingressPointers[name] {
			continue
		}
		if strings.Contains(value, "://") {
			if u, err := url.Parse(value); err != nil || internalHost(u.Hostname()) {
				return fmt.Sprintf("Ingress %s/%s annotation %s=%q points inside the provider: only outside hosts may be named from a twin; change or remove it",
					ing.Namespace, ing.Name, key, value)
			}
			continue
		}
		if ns, _, ok := strings.Cut(value, "/"); ok && ns != ing.Namespace {
			return fmt.Sprintf("Ingress %s/%s annotation %s=%q names namespace %q: a twin may only refer to its own objects; name an object of %s",
				ing.Namespace, ing.Name, key, value, ns, ing.Namespace)
		}
	}
	return ""
}

// internalHost reports a host name that resolves inside the provider: an IP
// literal, localhost, or a cluster DNS name (.svc, .local, or a single label,
// which the cluster's search path completes).
func internalHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(host), "."))
	if h == "" {
		return true
	}
	if _, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return true
	}
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || !strings.Contains(h, ".") {
		return true
	}
	for _, label := range strings.Split(h, ".") {
		if label == "svc" {
			return true
		}
	}
	return strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal")
}
