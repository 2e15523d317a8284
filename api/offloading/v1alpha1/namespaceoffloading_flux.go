package v1alpha1

// These accessors let the shared Flux status helpers (controllers/fluxstatus)
// finalize a NamespaceOffloading without knowing its concrete type.

// GetLastHandledReconcileRequest returns the last reconcile.fluxcd.io/requestedAt value handled.
func (in *NamespaceOffloading) GetLastHandledReconcileRequest() string {
	return in.Status.LastHandledReconcileAt
}

// SetLastHandledReconcileRequest records a handled reconcile.fluxcd.io/requestedAt value.
func (in *NamespaceOffloading) SetLastHandledReconcileRequest(v string) {
	in.Status.LastHandledReconcileAt = v
}

// SetObservedGeneration records the generation the status describes.
func (in *NamespaceOffloading) SetObservedGeneration(g int64) {
	in.Status.ObservedGeneration = g
}
