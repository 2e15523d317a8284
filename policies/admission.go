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

package policies

import (
	"fmt"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// Verdict is admission's answer to a change: Denied lists why it is refused
// (each reason names the field and the fix), Warnings what the user should
// know although it is allowed.
type Verdict struct {
	Denied   []string
	Warnings []string
}

// Allowed reports whether nothing denies the change.
func (v Verdict) Allowed() bool { return len(v.Denied) == 0 }

// MappingStrategyOf is the effective mapping strategy (the schema's default
// when unset).
func MappingStrategyOf(no *offloadingv1alpha1.NamespaceOffloading) offloadingv1alpha1.NamespaceMappingStrategy {
	if no.Spec.NamespaceMappingStrategy == "" {
		return offloadingv1alpha1.DefaultNameMappingStrategy
	}
	return no.Spec.NamespaceMappingStrategy
}

// PodStrategyOf is the effective pod offloading strategy.
func PodStrategyOf(no *offloadingv1alpha1.NamespaceOffloading) offloadingv1alpha1.PodOffloadingStrategy {
	if no.Spec.PodOffloadingStrategy == "" {
		return offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy
	}
	return no.Spec.PodOffloadingStrategy
}

// AdmitOffloading judges a NamespaceOffloading being created (old nil) or
// updated. The webhook and the CLI's plan both ask it, so a pull request is
// told what the cluster will say.
func AdmitOffloading(old, updated *offloadingv1alpha1.NamespaceOffloading) Verdict {
	var v Verdict
	if updated.Name != offloadingv1alpha1.RequiredName {
		v.Denied = append(v.Denied, fmt.Sprintf("metadata.name %q: a NamespaceOffloading must be named %q, there is one per namespace: rename it",
			updated.Name, offloadingv1alpha1.RequiredName))
	}
	if _, err := NotReadyPolicyOf(updated); err != nil {
		v.Denied = append(v.Denied, err.Error())
	}
	if _, err := SelectedClusters(updated.Spec.ClusterSelector, nil); err != nil {
		v.Denied = append(v.Denied, err.Error()+": use the operators In, NotIn, Exists, DoesNotExist, Gt or Lt with the values each requires")
	}
	if old == nil {
		return v
	}
	if before, after := MappingStrategyOf(old), MappingStrategyOf(updated); before != after {
		v.Denied = append(v.Denied, fmt.Sprintf("spec.namespaceMappingStrategy cannot change (%s → %s): it is immutable, remote namespaces are never renamed; "+
			"to change it, delete this NamespaceOffloading (unoffloading the namespace) and create it again with the new strategy", before, after))
	}
	if before, after := PodStrategyOf(old), PodStrategyOf(updated); StricterPodStrategy(before, after) {
		v.Warnings = append(v.Warnings, fmt.Sprintf("spec.podOffloadingStrategy %s → %s: pods already running are not evicted and stay where they are; "+
			"only new pods follow the new strategy (restart the workloads, e.g. kubectl rollout restart, to move them)", before, after))
	}
	return v
}

// StricterPodStrategy reports whether after allows fewer places than before:
// every change but one towards LocalAndRemote.
func StricterPodStrategy(before, after offloadingv1alpha1.PodOffloadingStrategy) bool {
	return before != after && after != offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy
}
