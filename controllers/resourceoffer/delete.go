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
	"fmt"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// reconcileDelete withdraws the offer: once the consumer runs nothing here,
// its identity and tenant namespace go, then the finalizer. The consumer has
// spec.withdrawalGracePeriod to drain; after it, this cluster deletes the
// consumer's workloads itself (no new ones are admitted meanwhile: the
// ShadowPod webhook knows only live offers).
func (r *ResourceOfferReconciler) reconcileDelete(ctx context.Context, offer *sharingv1alpha1.ResourceOffer) (ctrl.Result, error) {
	clusterID := offer.Spec.ClusterID
	where, err := r.consumerWorkloads(ctx, clusterID)
	if err != nil {
		fluxstatus.MarkNotReady(offer, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	}
	now := r.now()
	if st, expired := withdrawalState(clusterID, where, offer.DeletionTimestamp.Time, offer.WithdrawalGrace(), now); st.status {
		fluxstatus.MarkNotReady(offer, false, st.reason, "%s", st.message)
		if !expired {
			return ctrl.Result{RequeueAfter: min(consumerPodsRequeue, offer.DeletionTimestamp.Add(offer.WithdrawalGrace()).Sub(now))}, nil
		}
		if err := r.deleteConsumerWorkloads(ctx, clusterID); err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{RequeueAfter: consumerPodsRequeue}, nil
	}
	shared, err := r.otherOfferFor(ctx, offer)
	if err != nil {
		fluxstatus.MarkNotReady(offer, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	}
	if shared != "" {
		log.FromContext(ctx).Info("keeping the consumer's tenant: another offer names the same cluster", "clusterID", clusterID, "offer", shared)
	} else if err := r.deleteTenant(ctx, clusterID); err != nil {
		fluxstatus.MarkNotReady(offer, false, meta.ReconciliationFailedReason, "%v", err)
		return ctrl.Result{}, err
	} else if r.Fabric != nil {
		if err := r.Fabric.Release(ctx, clusterID); err != nil {
			fluxstatus.MarkNotReady(offer, false, meta.ReconciliationFailedReason, "releasing the gateway of cluster %s: %v", clusterID, err)
			return ctrl.Result{}, err
		}
	}
	controllerutil.RemoveFinalizer(offer, Finalizer)
	return ctrl.Result{}, nil
}

// consumerWorkloads counts, per namespace, the pods and ShadowPods that
// cluster clusterID offloaded here.
func (r *ResourceOfferReconciler) consumerWorkloads(ctx context.Context, clusterID string) (map[string]workloadCount, error) {
	selector := client.MatchingLabels{sharingv1alpha1.OriginClusterIDLabel: clusterID}
	where := map[string]workloadCount{}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, selector); err != nil {
		return nil, fmt.Errorf("listing Pods labelled %s=%s: %w", sharingv1alpha1.OriginClusterIDLabel, clusterID, err)
	}
	for _, p := range pods.Items {
		c := where[p.Namespace]
		c.pods++
		where[p.Namespace] = c
	}
	shadowPods := &virtualkubeletv1alpha1.ShadowPodList{}
	err := r.List(ctx, shadowPods, selector)
	if err != nil && !apimeta.IsNoMatchError(err) { // no ShadowPod CRD: no ShadowPods
		return nil, fmt.Errorf("listing ShadowPods labelled %s=%s: %w", sharingv1alpha1.OriginClusterIDLabel, clusterID, err)
	}
	for _, sp := range shadowPods.Items {
		c := where[sp.Namespace]
		c.shadowPods++
		where[sp.Namespace] = c
	}
	return where, nil
}

// deleteConsumerWorkloads deletes the ShadowPods cluster clusterID made here,
// then any pod of its that outlived its ShadowPod (the ShadowPod controller
// does not recreate the pod of a ShadowPod being deleted). Only objects
// labelled for that consumer are touched.
func (r *ResourceOfferReconciler) deleteConsumerWorkloads(ctx context.Context, clusterID string) error {
	selector := client.MatchingLabels{sharingv1alpha1.OriginClusterIDLabel: clusterID}
	shadowPods := &virtualkubeletv1alpha1.ShadowPodList{}
	if err := r.List(ctx, shadowPods, selector); err != nil && !apimeta.IsNoMatchError(err) {
		return fmt.Errorf("listing ShadowPods labelled %s=%s: %w", sharingv1alpha1.OriginClusterIDLabel, clusterID, err)
	}
	for i := range shadowPods.Items {
		if err := r.Delete(ctx, &shadowPods.Items[i]); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s: %w", r.describe(&shadowPods.Items[i]), err)
		}
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, selector); err != nil {
		return fmt.Errorf("listing Pods labelled %s=%s: %w", sharingv1alpha1.OriginClusterIDLabel, clusterID, err)
	}
	for i := range pods.Items {
		if err := r.Delete(ctx, &pods.Items[i]); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s: %w", r.describe(&pods.Items[i]), err)
		}
	}
	return nil
}

// now is the reconciler's clock.
func (r *ResourceOfferReconciler) now() time.Time {
	if r.Clock != nil {
		return r.Clock()
	}
	return time.Now()
}

// otherOfferFor names another live offer to the same consumer: it shares the
// tenant, which must then outlive this offer.
func (r *ResourceOfferReconciler) otherOfferFor(ctx context.Context, offer *sharingv1alpha1.ResourceOffer) (string, error) {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return "", fmt.Errorf("listing ResourceOffers: %w", err)
	}
	for i := range offers.Items {
		o := &offers.Items[i]
		if client.ObjectKeyFromObject(o) != client.ObjectKeyFromObject(offer) && o.Spec.ClusterID == offer.Spec.ClusterID && o.DeletionTimestamp.IsZero() {
			return client.ObjectKeyFromObject(o).String(), nil
		}
	}
	return "", nil
}

// deleteTenant deletes every tenant namespace and identity Secret labelled
// for the consumer, so that one left behind by a change of spec.clusterName
// goes too. Objects labelled for another consumer are never touched.
func (r *ResourceOfferReconciler) deleteTenant(ctx context.Context, clusterID string) error {
	secrets := &corev1.SecretList{}
	if err := r.List(ctx, secrets, client.InNamespace(r.namespace()), client.MatchingLabels{sharingv1alpha1.RemoteClusterIDLabel: clusterID}); err != nil {
		return fmt.Errorf("listing identity Secrets of cluster %s in namespace %s: %w", clusterID, r.namespace(), err)
	}
	for i := range secrets.Items {
		s := &secrets.Items[i]
		if !strings.HasPrefix(s.Name, sharingv1alpha1.IdentitySecretPrefix) {
			continue // e.g. credentials this cluster holds as the peer's consumer
		}
		if err := r.Delete(ctx, s); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s: %w", r.describe(s), err)
		}
	}
	namespaces := &corev1.NamespaceList{}
	if err := r.List(ctx, namespaces, client.MatchingLabels{sharingv1alpha1.TenantNamespaceLabel: "true",
		sharingv1alpha1.RemoteClusterIDLabel: clusterID}); err != nil {
		return fmt.Errorf("listing tenant namespaces of cluster %s: %w", clusterID, err)
	}
	for i := range namespaces.Items {
		ns := &namespaces.Items[i]
		if err := r.Delete(ctx, ns); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting %s: %w", r.describe(ns), err)
		}
	}
	return nil
}
