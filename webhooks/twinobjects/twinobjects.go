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

// Package twinobjects is the provider's admission of the Services,
// EndpointSlices, Ingresses and PersistentVolumeClaims its consumers write
// into their twin namespaces (policies.TwinServiceProblem and its siblings,
// and policies.TwinClaimProblem, say what is refused and why): a validating
// webhook, and for EndpointSlices, where the API server takes it, the
// ValidatingAdmissionPolicy SlicePolicy. Only consumers are judged: the
// provider's own controllers, such as its EndpointSlice controller, write
// into twins too, with addresses of the provider's pods.
package twinobjects

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	storagev1 "k8s.io/api/storage/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Path is where the API server sends the twins' Service, EndpointSlice and
// Ingress admission requests.
const Path = "/validate-twin-objects"

// Validator judges what consumers write into twins.
type Validator struct {
	Decoder admission.Decoder
	// ProviderRanges are this cluster's pod, service and node networks, as
	// far as the manager knows them (--pod-cidr, --reserved-subnets):
	// endpoints a consumer writes are never there.
	ProviderRanges []netip.Prefix
	// Reader finds the classes a consumer's claims may have: its
	// ResourceOffer's spec.storageClassName (else the default class) and
	// spec.externalStorageClasses.
	Reader client.Reader
}

// Handle answers one creation or update.
func (v *Validator) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Delete || !IsConsumer(req.UserInfo.Username) {
		return admission.Allowed("")
	}
	var problem string
	switch req.Kind.Kind {
	case "Service":
		svc := &corev1.Service{}
		if err := v.Decoder.DecodeRaw(req.Object, svc); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		svc.Namespace = req.Namespace
		problem = policies.TwinServiceProblem(svc)
	case "EndpointSlice":
		slice := &discoveryv1.EndpointSlice{}
		if err := v.Decoder.DecodeRaw(req.Object, slice); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		slice.Namespace = req.Namespace
		problem = policies.TwinEndpointSliceProblem(slice, v.ProviderRanges)
	case "Ingress":
		ing := &networkingv1.Ingress{}
		if err := v.Decoder.DecodeRaw(req.Object, ing); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		ing.Namespace = req.Namespace
		problem = policies.TwinIngressProblem(ing)
	case "PersistentVolumeClaim":
		pvc := &corev1.PersistentVolumeClaim{}
		if err := v.Decoder.DecodeRaw(req.Object, pvc); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
		pvc.Namespace = req.Namespace
		var old *corev1.PersistentVolumeClaim
		if req.Operation == admissionv1.Update {
			old = &corev1.PersistentVolumeClaim{}
			if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
				return admission.Errored(http.StatusBadRequest, err)
			}
		}
		classes, err := v.claimClasses(ctx, req.UserInfo.Username)
		if err != nil {
			return admission.Errored(http.StatusInternalServerError, err)
		}
		problem = policies.TwinClaimProblem(pvc, old, classes)
	}
	if problem != "" {
		return admission.Denied(problem)
	}
	return admission.Allowed("")
}

// consumerUsernamePrefix starts the username of every consumer identity: a
// ServiceAccount of a tenant namespace, which is what a consumer's
// credentials authenticate as.
const consumerUsernamePrefix = "system:serviceaccount:" + sharingv1alpha1.TenantNamespacePrefix

// IsConsumer reports a consumer's identity.
func IsConsumer(username string) bool {
	return strings.HasPrefix(username, consumerUsernamePrefix)
}

// ConsumersOnly is the webhook's match condition: the API server calls the
// webhook for what consumers write and admits the provider's own writes into
// twins (its EndpointSlice controller's, its volume binder's) without the
// round trip, which Handle would answer with an allowance anyway. Handle
// still checks the identity, so the condition only saves calls.
func ConsumersOnly() admissionregistrationv1.MatchCondition {
	return admissionregistrationv1.MatchCondition{Name: "consumers-only",
		Expression: fmt.Sprintf("request.userInfo.username.startsWith(%q)", consumerUsernamePrefix)}
}

// claimClasses are the classes a consumer's claims may have: the external
// classes its ResourceOffer lists, and for its liqo claims the class the
// offer names, else this cluster's default class, else "".
func (v *Validator) claimClasses(ctx context.Context, username string) (policies.OfferedClaimClasses, error) {
	var classes policies.OfferedClaimClasses
	tenant := strings.Split(strings.TrimPrefix(username, "system:serviceaccount:"), ":")[0]
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := v.Reader.List(ctx, offers); err != nil {
		return classes, fmt.Errorf("listing ResourceOffers to find the storage classes offered to %s: %w", tenant, err)
	}
	for _, o := range offers.Items {
		if o.Status.TenantNamespace == tenant {
			classes.Virtual = o.Spec.StorageClassName
			classes.External = o.Spec.ExternalStorageClasses
			break
		}
	}
	if classes.Virtual != "" {
		return classes, nil
	}
	list := &storagev1.StorageClassList{}
	if err := v.Reader.List(ctx, list); err != nil {
		return classes, fmt.Errorf("listing StorageClasses to find the default one: %w", err)
	}
	for _, c := range list.Items {
		if c.Annotations[defaultClassAnnotation] == "true" {
			classes.Virtual = c.Name
			break
		}
	}
	return classes, nil
}

// defaultClassAnnotation marks a cluster's default StorageClass.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"
