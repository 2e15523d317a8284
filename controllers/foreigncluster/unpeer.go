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
	"github.com/spillway-dev/spillway/policies"
)

// unpeer cordons the virtual node, evicts its pods through the Eviction API
// (so PodDisruptionBudgets hold), then, once the node is empty and while the
// session still runs, withdraws this cluster's twin-namespace requests on the
// provider and waits for the provider to remove the twins. Only then does it
// stop the session and delete the node. The result says what is left to do.
// Nothing else on the provider is touched: the provider cleans up its side
// when its offer is removed from git, and an unreachable provider keeps
// everything, the finalizer included.
func (r *ForeignClusterReconciler) unpeer(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (unpeering, error) {
	// No new offloading towards a peer being unpeered.
	r.Runtime.Withdraw(fc.Spec.ClusterIdentity.ClusterID)
	node, err := r.virtualNode(ctx, fc)
	if err != nil {
		return unpeering{}, err
	}
	if node != nil {
		left, blocked, err := r.evictPods(ctx, node)
		if err != nil {
			return unpeering{podsToEvict: left}, err
		}
		if left > 0 {
			return unpeering{podsToEvict: left, blockedBy: blocked, drainErr: r.keepDraining(ctx, fc)}, nil
		}
	}
	if u := r.releaseProviderTwins(ctx, fc, node != nil); !u.done() {
		return u, nil
	}
	r.Runtime.Stop(fc.Name)
	if node != nil {
		if err := r.Delete(ctx, node); client.IgnoreNotFound(err) != nil {
			return unpeering{}, fmt.Errorf("deleting virtual node %s: %w", node.Name, err)
		}
	}
	return unpeering{}, r.releaseNetwork(ctx, fc)
}

// virtualNode returns the peering's virtual node, nil if there is none.
func (r *ForeignClusterReconciler) virtualNode(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (*corev1.Node, error) {
	name, err := r.existingNode(ctx, fc)
	if err != nil || name == "" {
		return nil, err
	}
	node := &corev1.Node{}
	if err := r.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading virtual node %s: %w", name, err)
	}
	return node, nil
}

// evictPods cordons the node and evicts its pods; it returns how many are
// still bound to it, and the first refusal by a PodDisruptionBudget, which is
// retried on the next pass.
func (r *ForeignClusterReconciler) evictPods(ctx context.Context, node *corev1.Node) (left int, blocked string, err error) {
	if !node.Spec.Unschedulable {
		base := node.DeepCopy()
		node.Spec.Unschedulable = true
		if err := r.Patch(ctx, node, client.MergeFrom(base)); err != nil {
			return 0, "", fmt.Errorf("cordoning %s: %w", node.Name, err)
		}
	}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.MatchingFieldsSelector{Selector: fields.OneTermEqualSelector("spec.nodeName", node.Name)}); err != nil {
		return 0, "", err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if !p.DeletionTimestamp.IsZero() {
			continue
		}
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
		err := r.SubResource("eviction").Create(ctx, p, ev)
		why, refused := policies.EvictionRefusal(err)
		switch {
		case err == nil, apierrors.IsNotFound(err):
		case refused:
			if blocked == "" {
				blocked = fmt.Sprintf("the eviction of pod %s/%s is refused by a PodDisruptionBudget: %s", p.Namespace, p.Name, why)
			}
		default:
			return len(pods.Items), blocked, fmt.Errorf("evicting %s/%s from %s: %w", p.Namespace, p.Name, node.Name, err)
		}
	}
	return len(pods.Items), blocked, nil
}

func (r *ForeignClusterReconciler) reconcileDelete(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) (ctrl.Result, error) {
	u, err := r.unpeer(ctx, fc)
	if err != nil {
		return ctrl.Result{}, err
	}
	node, err := r.existingNode(ctx, fc)
	if err != nil {
		return ctrl.Result{}, err
	}
	if progress := unpeeringProgress(node, u); progress != "" {
		fluxstatus.MarkNotReady(fc, false, ReasonUnpeering, "deleting: %s", progress)
		return ctrl.Result{RequeueAfter: unpeeringRequeue(fc.GetRequeueAfter(), u)}, nil
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
