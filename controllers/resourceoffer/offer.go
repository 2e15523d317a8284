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
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// computedOffer is what one reconcile computed the offer to be.
type computedOffer struct {
	offered corev1.ResourceList
	zeroed  []policies.RoundedToZero
	// resold names the virtual nodes a broker's offer counts; exposed are the
	// labels it derives from them (spec.exposedLabelKeys), and conflicts the
	// keys left out because those nodes disagree.
	resold    []string
	exposed   map[string]string
	conflicts []policies.LabelConflict
}

// computeOffer reads nodes and the pods' usage only for a percentage offer:
// a fixed one does not depend on them. The usage is a count kept from pod
// events (podUsage), so a pass costs O(nodes), however many pods run.
func (r *ResourceOfferReconciler) computeOffer(ctx context.Context, offer *sharingv1alpha1.ResourceOffer) (computedOffer, error) {
	var c computedOffer
	if offer.HasFixedLimits() {
		c.offered, c.zeroed = offeredResources(offer, nil, nil)
		return c, nil
	}
	nodes := &corev1.NodeList{}
	if err := r.List(ctx, nodes); err != nil {
		return c, fmt.Errorf("listing Nodes to size the offer: %w", err)
	}
	c.offered, c.zeroed = offeredResources(offer, nodes.Items, r.usage.except(offer.Spec.ClusterID))
	if offer.Spec.Broker {
		c.resold = policies.ResellableNodes(nodes.Items, offer.Spec.ClusterID)
		c.exposed, c.conflicts = policies.ExposedLabels(nodes.Items, offer.Spec.ClusterID, derivedLabelKeys(offer))
	}
	return c, nil
}

// derivedLabelKeys are the exposed keys spec.labels does not set: git's
// value wins, so the providers' values for those neither count nor conflict.
func derivedLabelKeys(offer *sharingv1alpha1.ResourceOffer) []string {
	var keys []string
	for _, k := range offer.Spec.ExposedLabelKeys {
		if _, inGit := offer.Spec.Labels[k]; !inGit {
			keys = append(keys, k)
		}
	}
	return keys
}

// offeredResources is the offer: spec.resources.limits verbatim, or the
// effective percentage of free allocatable, less used: what the pods hold
// per node, the consumer's own offloaded pods left out (podUsage.except).
// Its virtual node already accounts for them, and subtracting them here too
// would shrink its capacity as it uses it.
func offeredResources(offer *sharingv1alpha1.ResourceOffer, nodes []corev1.Node, used map[string]policies.NodeUsage) (corev1.ResourceList, []policies.RoundedToZero) {
	if offer.HasFixedLimits() {
		return offer.Spec.Resources.Limits.DeepCopy(), nil
	}
	if offer.Spec.Broker {
		return policies.ScaleOffer(policies.ResellableFreeUsing(nodes, used, offer.Spec.ClusterID), offer.EffectiveSharingPercentage())
	}
	return policies.ScaleOffer(policies.FreeAllocatableUsing(nodes, used), offer.EffectiveSharingPercentage())
}

// offeredLabels are the labels derived from a broker's providers
// (exposed), then spec.labels over them, and for a broker's offer the
// brokered label, which no broker's spec.labels can remove: the consumer's
// virtual node carries it, so the consumer, if a broker itself, never
// resells it. A plain offer derives nothing.
func offeredLabels(offer *sharingv1alpha1.ResourceOffer, exposed map[string]string) map[string]string {
	labels := map[string]string{}
	if offer.Spec.Broker {
		maps.Copy(labels, exposed)
	}
	maps.Copy(labels, offer.Spec.Labels)
	if offer.Spec.Broker {
		labels[virtualkubeletv1alpha1.BrokeredLabel] = "true"
	} else {
		delete(labels, virtualkubeletv1alpha1.BrokeredLabel)
	}
	return labels
}

// offerConfigMapData is what the consumer reads through its identity: who
// offers, to whom, how much, and with which labels.
func offerConfigMapData(providerID, providerName string, offer *sharingv1alpha1.ResourceOffer, offered corev1.ResourceList, exposed map[string]string) (map[string]string, error) {
	if offered == nil {
		offered = corev1.ResourceList{}
	}
	labels := offeredLabels(offer, exposed)
	resources, err := json.Marshal(offered)
	if err != nil {
		return nil, fmt.Errorf("encoding the offered resources: %w", err)
	}
	labelsJSON, err := json.Marshal(labels)
	if err != nil {
		return nil, fmt.Errorf("encoding spec.labels: %w", err)
	}
	data := map[string]string{
		sharingv1alpha1.OfferProviderClusterIDKey:   providerID,
		sharingv1alpha1.OfferProviderClusterNameKey: providerName,
		sharingv1alpha1.OfferConsumerClusterIDKey:   offer.Spec.ClusterID,
		sharingv1alpha1.OfferResourcesKey:           string(resources),
		sharingv1alpha1.OfferLabelsKey:              string(labelsJSON),
		sharingv1alpha1.OfferReadyKey:               "true",
	}
	if offer.Spec.StorageClassName != "" {
		data[sharingv1alpha1.OfferStorageClassKey] = offer.Spec.StorageClassName
	}
	if len(offer.Spec.ExternalStorageClasses) > 0 {
		external, err := json.Marshal(offer.Spec.ExternalStorageClasses)
		if err != nil {
			return nil, fmt.Errorf("encoding spec.externalStorageClasses: %w", err)
		}
		data[sharingv1alpha1.OfferExternalStorageClassesKey] = string(external)
	}
	return data, nil
}

// ensureOfferConfigMap publishes the offer; an unchanged offer writes nothing.
func (r *ResourceOfferReconciler) ensureOfferConfigMap(ctx context.Context, s *scope, c computedOffer) error {
	data, err := offerConfigMapData(r.LocalClusterID, r.providerName(), s.offer, c.offered, c.exposed)
	if err != nil {
		return fmt.Errorf("ResourceOffer %s: %w", s.offer.Name, err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: s.tenantNamespace, Name: sharingv1alpha1.OfferConfigMapName}}
	return r.createOrUpdate(ctx, cm, func() error {
		consumerLabels(cm, s.clusterID)
		cm.Data, cm.BinaryData = data, nil
		return nil
	})
}
