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
	"maps"
	"slices"
	"time"

	"github.com/fluxcd/pkg/runtime/predicates"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// usageDebounce gathers a burst of node and pod events (a rollout, a node
// joining) into one resize of each percentage offer.
const usageDebounce = 3 * time.Second

// SetupWithManager watches ResourceOffers; Nodes and Pods, so percentage
// offers follow capacity and load; and the Secrets labelled for a consumer,
// so a filled or deleted token (a rotation) reissues the identity at once;
// and deleted offers, to retry those that were waiting for their tenant name.
// Tenant objects live in other namespaces than the offer, where owner
// references cannot point, hence mapped watches rather than Owns.
func (r *ResourceOfferReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.LocalClusterID == "" || r.APIServerURL == "" {
		return errors.New("ResourceOfferReconciler needs LocalClusterID and APIServerURL: they are written into every identity issued to consumers")
	}
	return ctrl.NewControllerManagedBy(mgr).
		Named("resourceoffer").
		For(&sharingv1alpha1.ResourceOffer{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, predicates.ReconcileRequestedPredicate{}))).
		Watches(&corev1.Node{}, debounced(r.percentageOffers), builder.WithPredicates(nodeCapacityChanged)).
		WatchesRawSource(&podUsageSource{informers: mgr.GetCache(), usage: &r.usage, requests: r.offersForPodChange}).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.offersForConsumerObject),
			builder.WithPredicates(predicate.NewPredicateFuncs(hasConsumerLabel))).
		// The consumer publishing its gateway parameters starts this side's gateway.
		Watches(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.offersForConsumerObject),
			builder.WithPredicates(predicate.NewPredicateFuncs(isConsumerNetworkConfigMap))).
		// An offer stalled on a tenant name another offer held retries once that one is gone.
		Watches(&sharingv1alpha1.ResourceOffer{}, handler.EnqueueRequestsFromMapFunc(r.offersSharingTenant),
			builder.WithPredicates(deletedOnly)).
		Complete(r)
}

// percentageOffers maps any change in capacity to every percentage offer.
func (r *ResourceOfferReconciler) percentageOffers(ctx context.Context, _ client.Object) []reconcile.Request {
	return r.offerRequests(ctx, func(o *sharingv1alpha1.ResourceOffer) bool { return !o.HasFixedLimits() })
}

// offersForPodChange maps a pod event to the offers it concerns: the
// percentage offers to consumers other than the origins whose usage it
// changed (an offer leaves its own consumer's pods out, so a consumer's pods
// arriving never resize its own offer), and, for a pod a consumer offloaded
// that arrives or departs, that consumer's offers being deleted, which wait
// for its pods to go.
func (r *ResourceOfferReconciler) offersForPodChange(ctx context.Context, changed []string, origin string, arrivedOrDeparted bool) []reconcile.Request {
	if len(changed) == 0 && (origin == "" || !arrivedOrDeparted) {
		return nil
	}
	return r.offerRequests(ctx, func(o *sharingv1alpha1.ResourceOffer) bool {
		if !o.HasFixedLimits() && slices.ContainsFunc(changed, func(c string) bool { return c != o.Spec.ClusterID }) {
			return true
		}
		return arrivedOrDeparted && origin != "" && o.Spec.ClusterID == origin && !o.DeletionTimestamp.IsZero()
	})
}

// offersForConsumerObject maps an object labelled liqo.io/remote-cluster-id
// to the offers for that consumer.
func (r *ResourceOfferReconciler) offersForConsumerObject(ctx context.Context, obj client.Object) []reconcile.Request {
	id := obj.GetLabels()[sharingv1alpha1.RemoteClusterIDLabel]
	if id == "" {
		return nil
	}
	return r.offerRequests(ctx, func(o *sharingv1alpha1.ResourceOffer) bool { return o.Spec.ClusterID == id })
}

// offersSharingTenant maps a deleted offer to the others whose tenant name is the same.
func (r *ResourceOfferReconciler) offersSharingTenant(ctx context.Context, obj client.Object) []reconcile.Request {
	gone, ok := obj.(*sharingv1alpha1.ResourceOffer)
	if !ok {
		return nil
	}
	name := sharingv1alpha1.TenantName(gone.Spec.ClusterName, gone.Spec.ClusterID)
	return r.offerRequests(ctx, func(o *sharingv1alpha1.ResourceOffer) bool {
		return client.ObjectKeyFromObject(o) != client.ObjectKeyFromObject(gone) &&
			sharingv1alpha1.TenantName(o.Spec.ClusterName, o.Spec.ClusterID) == name
	})
}

var deletedOnly = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	UpdateFunc:  func(event.UpdateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func (r *ResourceOfferReconciler) offerRequests(ctx context.Context, match func(*sharingv1alpha1.ResourceOffer) bool) []reconcile.Request {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range offers.Items {
		if o := &offers.Items[i]; match(o) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(o)})
		}
	}
	return out
}

func isConsumerNetworkConfigMap(obj client.Object) bool {
	return obj.GetName() == sharingv1alpha1.ConsumerNetworkConfigMapName && hasConsumerLabel(obj)
}

func hasConsumerLabel(obj client.Object) bool {
	return obj.GetLabels()[sharingv1alpha1.RemoteClusterIDLabel] != ""
}

// debounced enqueues the mapped requests after usageDebounce; the delaying
// queue keeps one pending entry per offer, so a burst costs one reconcile.
func debounced(fn handler.MapFunc) handler.EventHandler {
	enqueue := func(ctx context.Context, obj client.Object, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
		for _, req := range fn(ctx, obj) {
			q.AddAfter(req, usageDebounce)
		}
	}
	type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, q queue) { enqueue(ctx, e.Object, q) },
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q queue) { enqueue(ctx, e.ObjectNew, q) },
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q queue) { enqueue(ctx, e.Object, q) },
	}
}

// nodeCapacityChanged passes what changes FreeAllocatable's view of a node;
// status heartbeats do not.
var nodeCapacityChanged = predicate.Funcs{
	UpdateFunc: func(e event.UpdateEvent) bool {
		oldNode, okOld := e.ObjectOld.(*corev1.Node)
		newNode, okNew := e.ObjectNew.(*corev1.Node)
		if !okOld || !okNew {
			return false
		}
		return !equality.Semantic.DeepEqual(oldNode.Status.Allocatable, newNode.Status.Allocatable) ||
			oldNode.Spec.Unschedulable != newNode.Spec.Unschedulable ||
			nodeReady(oldNode) != nodeReady(newNode) ||
			!maps.Equal(oldNode.Labels, newNode.Labels)
	},
	GenericFunc: func(event.GenericEvent) bool { return false },
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
