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

package resourceoffer

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// tenantConflict says that a provider-side object named after this consumer
// already belongs to another one: two offers whose spec.clusterName map to
// the same tenant name. Only a change in git resolves it.
type tenantConflict struct {
	// object is the object in the way, e.g. "Namespace liqo-tenant-rome".
	object string
	// holderID is the cluster ID on the object's liqo.io/remote-cluster-id label; empty when unlabelled.
	holderID string
	// holderOffer is the ResourceOffer (namespace/name) for holderID, when one exists.
	holderOffer string
	// terminating: the object is being deleted, so the conflict ends by itself.
	terminating bool
}

func (c *tenantConflict) Error() string {
	return fmt.Sprintf("%s belongs to cluster %q", c.object, c.holderID)
}

// claim refuses to take over an existing object labelled for another
// consumer, or not labelled at all (then Spillway did not create it).
func claim(obj client.Object, clusterID, described string) error {
	if obj.GetResourceVersion() == "" {
		return nil
	}
	if holder := obj.GetLabels()[sharingv1alpha1.RemoteClusterIDLabel]; holder != clusterID {
		return &tenantConflict{object: described, holderID: holder, terminating: obj.GetDeletionTimestamp() != nil}
	}
	return nil
}

// consumerLabels mark every object made for a consumer; the Secret watch and
// the deletion find them by it.
func consumerLabels(obj client.Object, clusterID string) {
	labels := obj.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels[sharingv1alpha1.RemoteClusterIDLabel] = clusterID
	obj.SetLabels(labels)
}

// ensureTenantNamespace creates the consumer's namespace, or returns the
// conflict when the name is taken by another consumer.
func (r *ResourceOfferReconciler) ensureTenantNamespace(ctx context.Context, s *scope) (*tenantConflict, error) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.tenantNamespace}}
	err := r.createOrUpdate(ctx, ns, func() error {
		if err := claim(ns, s.clusterID, r.describe(ns)); err != nil {
			return err
		}
		consumerLabels(ns, s.clusterID)
		ns.Labels[sharingv1alpha1.TenantNamespaceLabel] = "true"
		return nil
	})
	var conflict *tenantConflict
	if errors.As(err, &conflict) {
		return conflict, r.findHolder(ctx, s, conflict)
	}
	return nil, err
}

// findHolder names the ResourceOffer that holds the tenant name, if any.
func (r *ResourceOfferReconciler) findHolder(ctx context.Context, s *scope, c *tenantConflict) error {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return fmt.Errorf("listing ResourceOffers to find the holder of %s: %w", c.object, err)
	}
	for i := range offers.Items {
		o := &offers.Items[i]
		if client.ObjectKeyFromObject(o) != client.ObjectKeyFromObject(s.offer) && o.Spec.ClusterID == c.holderID && c.holderID != "" &&
			sharingv1alpha1.TenantName(o.Spec.ClusterName, o.Spec.ClusterID) == sharingv1alpha1.TenantName(s.offer.Spec.ClusterName, s.clusterID) {
			c.holderOffer = client.ObjectKeyFromObject(o).String()
			return nil
		}
	}
	return nil
}

func (r *ResourceOfferReconciler) ensureServiceAccount(ctx context.Context, s *scope) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: s.tenantNamespace, Name: sharingv1alpha1.ConsumerServiceAccountName}}
	return r.createOrUpdate(ctx, sa, func() error {
		consumerLabels(sa, s.clusterID)
		return nil
	})
}

// ensureToken returns the consumer's ServiceAccount token Secret once the
// token controller has filled it, nil until then. The Secret is created once
// and never updated: the token controller owns its data and annotations, and
// deleting it is how an operator rotates the consumer's credentials.
func (r *ResourceOfferReconciler) ensureToken(ctx context.Context, s *scope) (*corev1.Secret, error) {
	secret := &corev1.Secret{}
	key := client.ObjectKey{Namespace: s.tenantNamespace, Name: sharingv1alpha1.ConsumerTokenSecretName}
	err := r.Get(ctx, key, secret)
	switch {
	case apierrors.IsNotFound(err):
		return nil, r.createToken(ctx, s, key)
	case err != nil:
		return nil, fmt.Errorf("reading Secret %s: %w", key, err)
	case secret.Type != corev1.SecretTypeServiceAccountToken ||
		secret.Annotations[corev1.ServiceAccountNameKey] != sharingv1alpha1.ConsumerServiceAccountName:
		// A Secret under the contract's name that is not our token: replace it.
		if err := r.Delete(ctx, secret); client.IgnoreNotFound(err) != nil {
			return nil, fmt.Errorf("replacing Secret %s, which is not a token of ServiceAccount %s: %w", key, sharingv1alpha1.ConsumerServiceAccountName, err)
		}
		return nil, nil
	case len(secret.Data[corev1.ServiceAccountTokenKey]) == 0 || len(secret.Data[corev1.ServiceAccountRootCAKey]) == 0:
		return nil, nil
	}
	return secret, nil
}

func (r *ResourceOfferReconciler) createToken(ctx context.Context, s *scope, key client.ObjectKey) error {
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: sharingv1alpha1.ConsumerServiceAccountName}},
		Type: corev1.SecretTypeServiceAccountToken,
	}
	consumerLabels(secret, s.clusterID)
	err := r.Create(ctx, secret, client.FieldOwner(fieldOwner))
	if apierrors.IsAlreadyExists(err) {
		return nil // the cache has not seen it yet
	}
	if err != nil {
		return fmt.Errorf("creating Secret %s: %w", key, err)
	}
	return nil
}
