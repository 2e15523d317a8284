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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// unpeer cordons the virtual node, evicts its pods through the Eviction API
// (so PodDisruptionBudgets hold), and deletes the node once it is empty. It
// returns how many pods are still to go. Nothing on the provider is touched:
// the provider cleans up its side when its offer is removed from git.
func (r *ForeignClusterReconciler) unpeer(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (int, error) {
	// No new offloading towards a peer being unpeered.
	r.Runtime.Withdraw(fc.Spec.ClusterIdentity.ClusterID)
	name, err := r.existingNode(ctx, fc)
	if err != nil {
		return 0, err
	}
	if name == "" {
		r.Runtime.Stop(fc.Name)
		return 0, r.releaseNetwork(ctx, fc)
	}
	node := &corev1.Node{}
	if err := r.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	if !node.Spec.Unschedulable {
		base := node.DeepCopy()
		node.Spec.Unschedulable = true
		if err := r.Patch(ctx, node, client.MergeFrom(base)); err != nil {
			return 0, fmt.Errorf("cordoning %s: %w", name, err)
		}
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("spec.nodeName", name)}); err != nil {
		return 0, err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
		if err := r.SubResource("eviction").Create(ctx, p, ev); err != nil && !apierrors.IsNotFound(err) && !apierrors.IsTooManyRequests(err) {
			return len(pods.Items), fmt.Errorf("evicting %s/%s from %s: %w", p.Namespace, p.Name, name, err)
		}
	}
	if len(pods.Items) > 0 {
		return len(pods.Items), nil
	}
	r.Runtime.Stop(fc.Name)
	if err := r.Delete(ctx, node); client.IgnoreNotFound(err) != nil {
		return 0, fmt.Errorf("deleting virtual node %s: %w", name, err)
	}
	return 0, r.releaseNetwork(ctx, fc)
}

func (r *ForeignClusterReconciler) reconcileDelete(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (ctrl.Result, error) {
	remaining, err := r.unpeer(ctx, fc)
	if err != nil {
		return ctrl.Result{}, err
	}
	node, err := r.existingNode(ctx, fc)
	if err != nil {
		return ctrl.Result{}, err
	}
	if remaining > 0 || node != "" {
		fluxstatus.MarkNotReady(fc, false, ReasonUnpeering, "deleting: virtual node cordoned, %d pod(s) still to evict", remaining)
		return ctrl.Result{RequeueAfter: fc.GetRequeueAfter()}, nil
	}
	controllerutil.RemoveFinalizer(fc, Finalizer)
	return ctrl.Result{}, nil
}

// incomingEstablished reports whether this cluster offers resources to the
// peer: a Ready ResourceOffer naming its cluster ID.
func (r *ForeignClusterReconciler) incomingEstablished(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (bool, error) {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return false, err
	}
	for i := range offers.Items {
		o := &offers.Items[i]
		if o.Spec.ClusterID == fc.Spec.ClusterIdentity.ClusterID && conditionTrue(o.Status.Conditions, sharingv1alpha1.ReadyCondition) {
			return true, nil
		}
	}
	return false, nil
}

func conditionTrue(conds []metav1.Condition, t string) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}
