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

// Annotations that steer how resources of an offloaded namespace are copied
// ("reflected") into the peer.
const (
	// SkipReflectionAnnotation, on any object of an offloaded namespace,
	// keeps that object out of the peer: useful for Secrets or ConfigMaps
	// that must stay local.
	SkipReflectionAnnotation = "liqo.io/skip-reflection"

	// ForceRemoteNodePortAnnotation, set to "true" on a NodePort or
	// LoadBalancer Service, makes the copy in the peer request the same node
	// port as the local Service instead of letting the peer pick one.
	ForceRemoteNodePortAnnotation = "liqo.io/force-remote-node-port"
)

// Condition types on ShadowPod.status.conditions.
const (
	// ReadyCondition is true when the pod made from the ShadowPod exists and
	// matches its spec.
	ReadyCondition = meta.ReadyCondition
	// ReconcilingCondition is true while the pod is being (re)created.
	ReconcilingCondition = meta.ReconcilingCondition
	// StalledCondition is true when the pod cannot be created, e.g. because
	// the provider's quota for the consumer is exhausted.
	StalledCondition = meta.StalledCondition
)

// Reasons used on ShadowPod conditions.
const (
	// PodCreatedReason: the pod exists and matches the spec.
	PodCreatedReason = "PodCreated"
	// PodCreationFailedReason: the provider API server refused the pod.
	PodCreationFailedReason = "PodCreationFailed"
	// QuotaExceededReason: running the pod would exceed the ResourceOffer.
	QuotaExceededReason = "QuotaExceeded"
)
