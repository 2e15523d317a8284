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

package v1alpha1

// These accessors let the shared Flux status helpers (controllers/fluxstatus)
// finalize a ResourceOffer without knowing its concrete type.

// GetLastHandledReconcileRequest returns the last reconcile.fluxcd.io/requestedAt value handled.
func (in *ResourceOffer) GetLastHandledReconcileRequest() string {
	return in.Status.LastHandledReconcileAt
}

// SetLastHandledReconcileRequest records a handled reconcile.fluxcd.io/requestedAt value.
func (in *ResourceOffer) SetLastHandledReconcileRequest(v string) {
	in.Status.LastHandledReconcileAt = v
}

// SetObservedGeneration records the generation the status describes.
func (in *ResourceOffer) SetObservedGeneration(g int64) {
	in.Status.ObservedGeneration = g
}
