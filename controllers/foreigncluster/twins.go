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

package foreigncluster

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/log"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// releaseProviderTwins withdraws the twin-namespace requests this cluster
// holds on the provider, whichever NamespaceOffloading made them: once the
// peer is withdrawn from the registry, the offloading controller can no
// longer reach it, so a request left now would keep its twin on the provider
// for good. peered says the virtual node still exists. The result says what
// is still held, or why the provider could not be asked.
func (r *ForeignClusterReconciler) releaseProviderTwins(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster, peered bool) unpeering {
	provider, tenant, ok := r.Runtime.Provider(fc.Name)
	if !ok && !peered {
		// No session and no virtual node: this peering was never ensured, or
		// its twins were released before the node was deleted.
		return unpeering{}
	}
	if !ok {
		// The manager restarted since the peering was ensured.
		var err error
		if provider, tenant, err = r.connectWithoutSession(ctx, fc); err != nil {
			return unpeering{providerErr: err}
		}
	}
	held, err := releaseTwins(ctx, provider, tenant)
	if errors.Is(err, errRevoked) {
		// The provider no longer lets this cluster in: it removed the tenant
		// (its offer is gone), and the requests and twins go with it.
		log.FromContext(ctx).Info("the provider refuses this cluster's identity: its tenant, with the twin requests, is the provider's to remove",
			"foreignCluster", fc.Name, "tenant", tenant, "error", err.Error())
		return unpeering{}
	}
	return unpeering{twinRequests: held, providerErr: err}
}

// connectWithoutSession connects to the provider with the credentials Secret,
// for a peering whose session is gone.
func (r *ForeignClusterReconciler) connectWithoutSession(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (kubernetes.Interface, string, error) {
	if fc.Spec.CredentialsSecretRef == nil {
		return nil, "", errors.New("the peering has no session and spec.credentialsSecretRef is not set")
	}
	key := types.NamespacedName{Namespace: fc.CredentialsNamespace(), Name: fc.Spec.CredentialsSecretRef.Name}
	secret := &corev1.Secret{}
	if err := r.Get(ctx, key, secret); apierrors.IsNotFound(err) {
		return nil, "", fmt.Errorf("the peering has no session and its credentials secret %s is gone: restore it, or remove finalizer %s by hand to leave the twins on the provider", key, Finalizer)
	} else if err != nil {
		return nil, "", fmt.Errorf("the peering has no session, and reading its credentials secret %s: %w", key, err)
	}
	creds, err := credentialsFromSecret(secret)
	if err != nil {
		return nil, "", err
	}
	provider, err := r.Runtime.Connect(fc.Name, creds.config, creds.fingerprint)
	if err != nil {
		return nil, "", fmt.Errorf("secret %s: %w", key, err)
	}
	return provider, creds.namespace, nil
}

// releaseTwins deletes every twin-namespace request in the tenant namespace
// and returns those the provider still holds: its finalizer keeps a request
// until the twin, empty of our pods, is deleted. A request without one never
// made a twin and is gone at once.
func releaseTwins(ctx context.Context, provider kubernetes.Interface, tenant string) ([]string, error) {
	cms := provider.CoreV1().ConfigMaps(tenant)
	requests, err := cms.List(ctx, metav1.ListOptions{LabelSelector: sharingv1alpha1.TwinRequestLabel + "=true"})
	if revoked(err) {
		return nil, fmt.Errorf("%w: listing the twin-namespace requests in %s: %w", errRevoked, tenant, err)
	}
	if err != nil {
		return nil, fmt.Errorf("listing the twin-namespace requests in %s: %w", tenant, err)
	}
	var held []string
	for i := range requests.Items {
		cm := &requests.Items[i]
		if cm.DeletionTimestamp.IsZero() {
			if err := cms.Delete(ctx, cm.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				return held, fmt.Errorf("withdrawing the twin-namespace request %s/%s: %w", tenant, cm.Name, err)
			}
		}
		if len(cm.Finalizers) > 0 {
			held = append(held, cm.Name)
		}
	}
	return held, nil
}

// errRevoked: the provider answered, and no longer lets this cluster read its
// own tenant namespace. A narrowed offloading Role still grants that (the
// peering rule reads the offer), so the tenant is being removed.
var errRevoked = errors.New("the provider refuses this cluster's identity")

func revoked(err error) bool {
	return apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err)
}
