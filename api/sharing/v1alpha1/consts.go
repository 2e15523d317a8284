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

package v1alpha1

import "github.com/fluxcd/pkg/apis/meta"

// DefaultSharingPercentage is the share of the provider's free allocatable
// resources offered when a ResourceOffer sets neither resources.limits nor
// sharingPercentage. It leaves headroom so the provider's own workloads are
// not starved by a consumer that fills its virtual node.
const DefaultSharingPercentage int32 = 90

// TopologyRegionLabel is the cluster label a provider advertises in
// spec.labels to say where it runs; the consumer puts it on the virtual node
// so pods can be steered to a region with a plain node selector.
const TopologyRegionLabel = "topology.liqo.io/region"

// Condition types on ResourceOffer.status.conditions.
const (
	// ReadyCondition is true when status.offered reflects the spec and has
	// been published to the consumer.
	ReadyCondition = meta.ReadyCondition
	// ReconcilingCondition is true while the offer is being (re)computed.
	ReconcilingCondition = meta.ReconcilingCondition
	// StalledCondition is true when the offer cannot be computed without a
	// change to the spec or the cluster.
	StalledCondition = meta.StalledCondition
)

// Reasons used on ResourceOffer conditions.
const (
	// SuspendedReason explains that reconciliation is paused by spec.suspend.
	SuspendedReason = "Suspended"
	// OfferPublishedReason: the offer is computed and visible to the consumer.
	OfferPublishedReason = "OfferPublished"
	// InsufficientResourcesReason: the fixed limits exceed what the provider
	// has free, so the offer would be a promise the provider cannot keep.
	InsufficientResourcesReason = "InsufficientResources"
	// ConsumerUnknownReason: no ForeignCluster matches spec.clusterId.
	ConsumerUnknownReason = "ConsumerUnknown"
)
