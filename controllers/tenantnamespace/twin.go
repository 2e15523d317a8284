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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// localNamespaceAnnotation, on a twin, names the consumer's namespace it
// mirrors, so a person on the provider can tell where its pods come from.
const localNamespaceAnnotation = "liqo.io/local-namespace"

// isTwinOf tells whether ns was created as consumerID's twin. The tenant
// namespace carries the consumer's ID too, but not the twin label, so it can
// never be adopted as a twin.
func isTwinOf(ns *corev1.Namespace, consumerID string) bool {
	return consumerID != "" && ns.Labels[sharingv1alpha1.TwinNamespaceLabel] == consumerID
}

// ensureTwin creates the twin, or brings the labels and annotation of the
// consumer's existing twin up to date. existing is nil when there is none;
// the caller has made sure that one that exists is the consumer's.
func (r *TwinNamespaceReconciler) ensureTwin(ctx context.Context, s *scope, existing *corev1.Namespace, offer *sharingv1alpha1.ResourceOffer) error {
	local := s.request.Data[sharingv1alpha1.TwinLocalNamespaceKey]
	// No offer: baseline; the twin then holds no pod of the consumer anyway.
	level := offer.EffectivePodSecurityLevel()
	if existing == nil {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.twin}}
		twinMetadata(ns, s.consumerID, local)
		setPodSecurityLabels(ns, level)
		if offer != nil && offer.Spec.Broker {
			// A broker's twin is offloaded onward: labelled from the start, the
			// pod webhook refuses its pods until the broker's NamespaceOffloading
			// exists (ShadowPods retry) rather than admit them unplaced.
			ns.Labels[offloadingv1alpha1.SchedulingEnabledLabel] = offloadingv1alpha1.SchedulingEnabledValue
		}
		if err := r.Create(ctx, ns, client.FieldOwner(fieldOwner)); err != nil {
			// AlreadyExists included: the next reconcile re-checks who holds the name.
			return fmt.Errorf("creating twin Namespace %s for cluster %s: %w", s.twin, s.consumerID, err)
		}
		return nil
	}
	ns := existing.DeepCopy()
	if changed := twinMetadata(ns, s.consumerID, local); !setPodSecurityLabels(ns, level) && !changed {
		return nil
	}
	if err := r.Patch(ctx, ns, client.MergeFrom(existing), client.FieldOwner(fieldOwner)); err != nil {
		return fmt.Errorf("updating labels of twin Namespace %s for cluster %s: %w", s.twin, s.consumerID, err)
	}
	return nil
}

// twinMetadata marks ns as consumerID's twin and reports whether it changed.
func twinMetadata(ns *corev1.Namespace, consumerID, localNamespace string) bool {
	changed := false
	set := func(m *map[string]string, k, v string) {
		if *m == nil {
			*m = map[string]string{}
		}
		if (*m)[k] != v {
			(*m)[k] = v
			changed = true
		}
	}
	set(&ns.Labels, sharingv1alpha1.TwinNamespaceLabel, consumerID)
	set(&ns.Labels, sharingv1alpha1.RemoteClusterIDLabel, consumerID)
	if localNamespace != "" {
		set(&ns.Annotations, localNamespaceAnnotation, localNamespace)
	}
	return changed
}
