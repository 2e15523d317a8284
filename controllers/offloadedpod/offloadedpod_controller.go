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

// Package offloadedpod holds the consumer's policy for a virtual node that
// stays NotReady: the pods of offloaded namespaces bound to a virtual node
// get the not-ready and unreachable tolerations their NamespaceOffloading
// asks for (policies.NotReadyPolicyOf; for ever unless annotated), so that the
// taint eviction controller never deletes locally a pod whose remote copy the
// provider keeps running through a partition (docs/faults.md).
//
// It works on bound pods rather than in the pod webhook because only binding
// says where a pod of a LocalAndRemote namespace runs: one on a physical node
// keeps Kubernetes' eviction. Kubernetes lets a running pod's
// tolerationSeconds change and tolerations be added, which is all this does;
// a changed annotation reaches running pods too.
package offloadedpod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
	"github.com/spillway-dev/spillway/policies"
)

// OffloadedPodReconciler keeps the NotReady tolerations of pods on virtual
// nodes to their namespace's policy. It writes spec.tolerations of those
// pods, nothing else, and reads NamespaceOffloadings and Nodes.
type OffloadedPodReconciler struct {
	client.Client
}

// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=nodes,verbs=get;list;watch
// +kubebuilder:rbac:groups=offloading.liqo.io,resources=namespaceoffloadings,verbs=get;list;watch

// Reconcile applies the policy to one pod. A pod not on a virtual node, or in
// a namespace that is not offloaded, is left as Kubernetes made it.
func (r *OffloadedPodReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	pod := &corev1.Pod{}
	if err := r.Get(ctx, req.NamespacedName, pod); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if pod.Spec.NodeName == "" {
		return ctrl.Result{}, nil
	}
	node := &corev1.Node{}
	if err := r.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !policies.GovernedByNotReadyPolicy(pod, node) {
		return ctrl.Result{}, nil
	}
	no := &offloadingv1alpha1.NamespaceOffloading{}
	err := r.Get(ctx, client.ObjectKey{Namespace: pod.Namespace, Name: offloadingv1alpha1.RequiredName}, no)
	if apierrors.IsNotFound(err) {
		// Not offloaded: no remote copy runs, so eviction duplicates nothing.
		return ctrl.Result{}, nil
	}
	if err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, r.apply(ctx, pod, policyOf(ctx, no))
}

// policyOf is the namespace's policy. An annotation admission should have
// refused (its webhook fails open) falls back to the default, the one that
// never runs a pod twice, and says so in the log.
func policyOf(ctx context.Context, no *offloadingv1alpha1.NamespaceOffloading) policies.NotReadyPolicy {
	p, err := policies.NotReadyPolicyOf(no)
	if err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "using the default NotReady policy instead", "namespaceOffloading", client.ObjectKeyFromObject(no))
		return policies.NotReadyPolicy{}
	}
	return p
}

// apply patches the pod's tolerations when the policy changes them; the
// patch carries the resourceVersion it was computed from, so it never
// overwrites a toleration added meanwhile.
func (r *OffloadedPodReconciler) apply(ctx context.Context, pod *corev1.Pod, p policies.NotReadyPolicy) error {
	tolerations, changed := policies.WithNotReadyPolicy(pod.Spec.Tolerations, p)
	if !changed {
		return nil
	}
	before := pod.DeepCopy()
	pod.Spec.Tolerations = tolerations
	if err := r.Patch(ctx, pod, client.MergeFromWithOptions(before, client.MergeFromWithOptimisticLock{}), client.FieldOwner(fluxstatus.FieldOwner)); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("setting the NotReady tolerations of pod %s/%s (%s): %w", pod.Namespace, pod.Name, p, err)
	}
	ctrl.LoggerFrom(ctx).Info("NotReady tolerations set", "pod", client.ObjectKeyFromObject(pod), "policy", p.String())
	return nil
}
