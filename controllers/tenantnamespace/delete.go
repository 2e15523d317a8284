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

package tenantnamespace

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/util/validation"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// reconcileDelete removes the twin of a withdrawn request once nothing of
// the consumer runs there, then releases the request. Deleting the ShadowPods
// is the consumer's job: a provider that deleted them would kill workloads
// whenever a request vanished by mistake.
func (r *TwinNamespaceReconciler) reconcileDelete(ctx context.Context, s *scope) (ctrl.Result, error) {
	if s.twin == "" || len(validation.IsDNS1123Label(s.twin)) > 0 {
		return ctrl.Result{}, r.removeFinalizer(ctx, s.request) // nothing could have been created
	}
	ns, err := r.getNamespace(ctx, s.twin)
	if err != nil {
		return ctrl.Result{}, err
	}
	if ns == nil || !isTwinOf(ns, s.consumerID) {
		// Gone already, or never ours (a conflict): nothing to delete.
		return ctrl.Result{}, r.removeFinalizer(ctx, s.request)
	}
	holder, err := r.otherRequestFor(ctx, s)
	if err != nil {
		return ctrl.Result{}, err
	}
	if holder != "" {
		log.FromContext(ctx).Info("keeping the twin: another request of the same consumer still holds it", "twin", s.twin, "request", holder)
		return ctrl.Result{}, r.removeFinalizer(ctx, s.request)
	}
	left, err := r.remainingWorkloads(ctx, s.twin)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !left.empty() {
		return ctrl.Result{RequeueAfter: drainRequeue},
			r.report(ctx, s.request, s.request.Data[sharingv1alpha1.TwinPhaseKey], left.waitingMessage(s.twin))
	}
	if ns.DeletionTimestamp.IsZero() {
		if err := r.Delete(ctx, ns, client.Preconditions{UID: &ns.UID}); client.IgnoreNotFound(err) != nil {
			return ctrl.Result{}, fmt.Errorf("deleting twin Namespace %s of cluster %s: %w", s.twin, s.consumerID, err)
		}
	}
	return ctrl.Result{}, r.removeFinalizer(ctx, s.request)
}

// otherRequestFor names a live request for the same twin from another tenant
// namespace of the same consumer (one left by a change of its cluster name):
// the twin must then outlive this request.
func (r *TwinNamespaceReconciler) otherRequestFor(ctx context.Context, s *scope) (string, error) {
	requests := &corev1.ConfigMapList{}
	if err := r.List(ctx, requests, client.MatchingLabels{sharingv1alpha1.TwinRequestLabel: "true"}); err != nil {
		return "", fmt.Errorf("listing twin-namespace requests: %w", err)
	}
	for i := range requests.Items {
		other := &requests.Items[i]
		if other.Name != s.request.Name || other.Namespace == s.request.Namespace || !other.DeletionTimestamp.IsZero() {
			continue
		}
		tenant, err := r.getNamespace(ctx, other.Namespace)
		if err != nil {
			return "", err
		}
		if tenant != nil && tenant.Labels[sharingv1alpha1.TenantNamespaceLabel] == "true" &&
			tenant.Labels[sharingv1alpha1.RemoteClusterIDLabel] == s.consumerID {
			return client.ObjectKeyFromObject(other).String(), nil
		}
	}
	return "", nil
}

// workloads is what still runs in a twin.
type workloads struct {
	pods, shadowPods int
	// names counts a ShadowPod and the pod made from it (same name) once.
	names map[string]struct{}
}

func (w workloads) empty() bool { return w.pods == 0 && w.shadowPods == 0 }

func (w workloads) waitingMessage(twin string) string {
	return fmt.Sprintf("twin namespace %s is being deleted: waiting for %d pods to terminate (%d Pods and %d ShadowPods remain; the consumer deletes its ShadowPods)",
		twin, len(w.names), w.pods, w.shadowPods)
}

// remainingWorkloads counts every Pod and ShadowPod in the twin, whoever made
// them: deleting the namespace would kill any of them.
func (r *TwinNamespaceReconciler) remainingWorkloads(ctx context.Context, twin string) (workloads, error) {
	w := workloads{names: map[string]struct{}{}}
	pods := &corev1.PodList{}
	if err := r.List(ctx, pods, client.InNamespace(twin)); err != nil {
		return w, fmt.Errorf("listing Pods in twin namespace %s: %w", twin, err)
	}
	for _, p := range pods.Items {
		w.pods++
		w.names[p.Name] = struct{}{}
	}
	shadowPods := &virtualkubeletv1alpha1.ShadowPodList{}
	err := r.List(ctx, shadowPods, client.InNamespace(twin))
	if err != nil && !apimeta.IsNoMatchError(err) { // no ShadowPod CRD: no ShadowPods
		return w, fmt.Errorf("listing ShadowPods in twin namespace %s: %w", twin, err)
	}
	for _, sp := range shadowPods.Items {
		w.shadowPods++
		w.names[sp.Name] = struct{}{}
	}
	return w, nil
}
