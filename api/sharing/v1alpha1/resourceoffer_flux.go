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
