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

// Package namespaceoffloading is the validating webhook of NamespaceOffloading:
// the name is fixed, the mapping strategy immutable, the cluster selector must
// parse, and a stricter pod strategy is allowed with a warning that running
// pods stay where they are. The verdict is policies.AdmitOffloading, the one
// the CLI's plan reports on a pull request. The CRD's CEL rules repeat the
// name and immutability checks, so they hold while the webhook is down.
package namespaceoffloading

import (
	"context"
	"net/http"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Path is where the API server sends NamespaceOffloading admission requests.
const Path = "/validate-namespaceoffloading"

// Validator judges NamespaceOffloading creations and updates.
type Validator struct {
	Decoder admission.Decoder
}

// Handle answers one request.
func (v *Validator) Handle(_ context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Delete {
		return admission.Allowed("")
	}
	updated := &offloadingv1alpha1.NamespaceOffloading{}
	if err := v.Decoder.DecodeRaw(req.Object, updated); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	var old *offloadingv1alpha1.NamespaceOffloading
	if req.Operation == admissionv1.Update {
		old = &offloadingv1alpha1.NamespaceOffloading{}
		if err := v.Decoder.DecodeRaw(req.OldObject, old); err != nil {
			return admission.Errored(http.StatusBadRequest, err)
		}
	}
	verdict := policies.AdmitOffloading(old, updated)
	if !verdict.Allowed() {
		return admission.Denied(strings.Join(verdict.Denied, "; ")).WithWarnings(verdict.Warnings...)
	}
	return admission.Allowed("").WithWarnings(verdict.Warnings...)
}
