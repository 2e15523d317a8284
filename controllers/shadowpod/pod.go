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

package shadowpod

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/apis/meta"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// notCopied are annotations about the ShadowPod object itself, not the pod.
var notCopied = map[string]bool{
	corev1.LastAppliedConfigAnnotation: true,
	meta.ReconcileRequestAnnotation:    true,
}

// desiredPod is the pod a ShadowPod stands for: same name and namespace, the
// ShadowPod's labels and annotations, its pod spec, and a controller
// reference so that garbage collection deletes the pod with the ShadowPod.
func desiredPod(sp *virtualkubeletv1alpha1.ShadowPod, consumerID string, scheme *runtime.Scheme) (*corev1.Pod, error) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: sp.Namespace, Name: sp.Name,
			Labels: podLabels(sp, consumerID), Annotations: podAnnotations(sp)},
		Spec: *sp.Spec.Pod.DeepCopy(),
	}
	// Whatever the webhook said (it may have been bypassed): the provider's
	// scheduler places the pod, and it runs as the twin's own ServiceAccount.
	pod.Spec.NodeName = ""
	pod.Spec.ServiceAccountName, pod.Spec.DeprecatedServiceAccount = policies.ProviderServiceAccount, ""
	// How long the pod stays on a NotReady node of this cluster is this
	// cluster's default: the consumer's tolerations were for its virtual node.
	pod.Spec.Tolerations = policies.WithoutNotReadyTolerations(pod.Spec.Tolerations)
	// Which of this cluster's nodes runs the pod is this cluster's choice: a
	// consumer cannot reach its virtual nodes, nor pick a broker's providers.
	policies.WithoutConsumerNodeChoice(&pod.Spec)
	// Controller and BlockOwnerDeletion: a foreground deletion of the
	// ShadowPod waits for the pod's graceful termination.
	if err := controllerutil.SetControllerReference(sp, pod, scheme); err != nil {
		return nil, fmt.Errorf("setting ShadowPod %s/%s as controller of its pod: %w", sp.Namespace, sp.Name, err)
	}
	return pod, nil
}

// policyViolation is why the pod policy at the offer's level refuses pod, as
// a message naming the ShadowPod's fields, the offer and the fix; "" allows.
// The webhook refuses such a ShadowPod already; this holds when it did not
// run (down with a failure policy of Ignore, or bypassed).
func policyViolation(pod *corev1.Pod, offer *sharingv1alpha1.ResourceOffer) string {
	level := offer.EffectivePodSecurityLevel()
	violations := policies.CheckPod(&pod.Spec, pod.Annotations, level)
	if len(violations) == 0 {
		return ""
	}
	name := "no ResourceOffer (baseline applies)"
	if offer != nil {
		name = "ResourceOffer " + offer.Namespace + "/" + offer.Name
	}
	return fmt.Sprintf("pod %s/%s was not created: it breaks the pod policy of %s (spec.podSecurityLevel %s): %s; the consumer must change the pod it offloads",
		pod.Namespace, pod.Name, name, level, policies.DescribePodViolations("spec.pod.", violations))
}

// offerFor is the live ResourceOffer for consumer, nil when there is none.
func (r *ShadowPodReconciler) offerFor(ctx context.Context, consumer string) (*sharingv1alpha1.ResourceOffer, error) {
	offers := &sharingv1alpha1.ResourceOfferList{}
	if err := r.List(ctx, offers); err != nil {
		return nil, fmt.Errorf("listing ResourceOffers: %w", err)
	}
	for i := range offers.Items {
		if offers.Items[i].Spec.ClusterID == consumer && offers.Items[i].DeletionTimestamp.IsZero() {
			return &offers.Items[i], nil
		}
	}
	return nil, nil
}

// podLabels are the ShadowPod's labels, with the origin label overwritten by
// the consumer the twin belongs to: a consumer cannot pass its pods off as
// another's, which the provider's accounting and unpeering rely on.
func podLabels(sp *virtualkubeletv1alpha1.ShadowPod, consumerID string) map[string]string {
	labels := make(map[string]string, len(sp.Labels)+1)
	for k, v := range sp.Labels {
		labels[k] = v
	}
	labels[sharingv1alpha1.OriginClusterIDLabel] = consumerID
	return labels
}

func podAnnotations(sp *virtualkubeletv1alpha1.ShadowPod) map[string]string {
	var annotations map[string]string
	for k, v := range sp.Annotations {
		if notCopied[k] {
			continue
		}
		if annotations == nil {
			annotations = map[string]string{}
		}
		annotations[k] = v
	}
	return annotations
}

// ranToCompletion tells whether a pod in phase ended for good: it succeeded,
// or it failed and its restart policy says not to run it again. Such a pod is
// never recreated. A failed pod with restartPolicy Always (an eviction) is:
// its workload is meant to run forever.
func ranToCompletion(phase corev1.PodPhase, policy corev1.RestartPolicy) bool {
	switch phase {
	case corev1.PodSucceeded:
		return true
	case corev1.PodFailed:
		return policy == corev1.RestartPolicyNever || policy == corev1.RestartPolicyOnFailure
	}
	return false
}

// syncPod brings what Kubernetes lets change of a running pod in line with
// the ShadowPod: labels and annotations (added or changed; a key the consumer
// removes is left, since nothing records which keys came from the ShadowPod)
// and the mutable parts of the spec (see mutableSpec).
func (r *ShadowPodReconciler) syncPod(ctx context.Context, s *scope, pod *corev1.Pod) error {
	base := pod.DeepCopy()
	metadataChanged := mergeInto(&pod.Labels, podLabels(s.shadowPod, s.consumerID))
	metadataChanged = mergeInto(&pod.Annotations, podAnnotations(s.shadowPod)) || metadataChanged
	specChanged := mutableSpec(&pod.Spec, &s.shadowPod.Spec.Pod)
	if !metadataChanged && !specChanged {
		return nil
	}
	// A strategic merge patch merges containers by name, so only the changed
	// images travel; the lock keeps a stale cache from undoing someone's edit.
	if err := r.Patch(ctx, pod, client.StrategicMergeFrom(base, client.MergeFromWithOptimisticLock{}), client.FieldOwner(fieldOwner)); err != nil {
		return fmt.Errorf("updating Pod %s/%s to ShadowPod generation %d: %w", pod.Namespace, pod.Name, s.shadowPod.Generation, err)
	}
	return nil
}

// mergeInto sets every key of want in *m and reports whether anything changed.
func mergeInto(m *map[string]string, want map[string]string) bool {
	changed := false
	for k, v := range want {
		if cur, ok := (*m)[k]; ok && cur == v {
			continue
		}
		if *m == nil {
			*m = map[string]string{}
		}
		(*m)[k] = v
		changed = true
	}
	return changed
}

// mutableSpec applies to a running pod's spec the changes of want that the
// API server accepts, and reports whether it changed anything. A pod's spec is
// immutable but for: container and init container images; activeDeadlineSeconds,
// which may be set or shortened, never lengthened or removed; and tolerations,
// which may only be added. Anything else (env, ports, volumes, resources
// outside the resize subresource) would need the pod deleted and recreated,
// killing a workload the consumer did not ask to restart; the consumer's own
// controllers change those by replacing the pod, which brings a new ShadowPod.
func mutableSpec(pod, want *corev1.PodSpec) bool {
	changed := syncImages(pod.Containers, want.Containers)
	changed = syncImages(pod.InitContainers, want.InitContainers) || changed
	if d := want.ActiveDeadlineSeconds; d != nil && *d > 0 && (pod.ActiveDeadlineSeconds == nil || *d < *pod.ActiveDeadlineSeconds) {
		pod.ActiveDeadlineSeconds = ptr.To(*d)
		changed = true
	}
	for _, t := range policies.WithoutVirtualNodeTolerations(policies.WithoutNotReadyTolerations(want.Tolerations)) {
		if !hasToleration(pod.Tolerations, t) {
			pod.Tolerations = append(pod.Tolerations, t)
			changed = true
		}
	}
	return changed
}

// syncImages sets each container's image to that of the wanted container of
// the same name; containers cannot be added or removed.
func syncImages(containers, want []corev1.Container) bool {
	changed := false
	for i := range containers {
		for _, w := range want {
			if w.Name == containers[i].Name && w.Image != "" && w.Image != containers[i].Image {
				containers[i].Image = w.Image
				changed = true
			}
		}
	}
	return changed
}

func hasToleration(tolerations []corev1.Toleration, t corev1.Toleration) bool {
	for _, have := range tolerations {
		if equality.Semantic.DeepEqual(have, t) {
			return true
		}
	}
	return false
}
