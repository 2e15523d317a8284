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
	corev1 "k8s.io/api/core/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// PodPlacement is what the pod webhook adds to a pod of an offloaded
// namespace: the toleration that lets it onto virtual nodes (when remote
// placement is allowed) and a required node affinity that encodes the
// namespace's podOffloadingStrategy and clusterSelector.
type PodPlacement struct {
	Tolerations []corev1.Toleration
	// NodeSelectorTerms are ORed; the webhook merges them with the pod's own
	// required terms (each of the pod's terms ANDed with each of these).
	NodeSelectorTerms []corev1.NodeSelectorTerm
}

// VirtualNodeToleration tolerates the virtual-node taint.
func VirtualNodeToleration() corev1.Toleration {
	return corev1.Toleration{Key: offloadingv1alpha1.VirtualNodeTaintKey, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
}

var (
	physicalNode = corev1.NodeSelectorRequirement{Key: virtualNodeLabelKey, Operator: corev1.NodeSelectorOpNotIn, Values: []string{virtualNodeLabelValue}}
	virtualNode  = corev1.NodeSelectorRequirement{Key: virtualNodeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{virtualNodeLabelValue}}
)

// PlacementFor computes the placement of pods in a namespace offloaded with
// strategy and selector:
//   - Local: physical nodes only, no toleration;
//   - Remote: the selected virtual nodes only;
//   - LocalAndRemote: physical nodes, or the selected virtual nodes.
func PlacementFor(strategy offloadingv1alpha1.PodOffloadingStrategy, selector *corev1.NodeSelector) PodPlacement {
	local := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{physicalNode}}
	if strategy == offloadingv1alpha1.LocalPodOffloadingStrategy {
		return PodPlacement{NodeSelectorTerms: []corev1.NodeSelectorTerm{local}}
	}
	remote := remoteTerms(selector)
	p := PodPlacement{Tolerations: []corev1.Toleration{VirtualNodeToleration()}}
	if strategy == offloadingv1alpha1.RemotePodOffloadingStrategy {
		p.NodeSelectorTerms = remote
		return p
	}
	p.NodeSelectorTerms = append([]corev1.NodeSelectorTerm{local}, remote...)
	return p
}

// remoteTerms restricts each selector term to virtual nodes; no selector means
// every virtual node.
func remoteTerms(selector *corev1.NodeSelector) []corev1.NodeSelectorTerm {
	if selector == nil || len(selector.NodeSelectorTerms) == 0 {
		return []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{virtualNode}}}
	}
	terms := make([]corev1.NodeSelectorTerm, 0, len(selector.NodeSelectorTerms))
	for _, t := range selector.NodeSelectorTerms {
		t = *t.DeepCopy()
		t.MatchExpressions = append(t.MatchExpressions, virtualNode)
		terms = append(terms, t)
	}
	return terms
}

// MergeRequiredTerms ANDs the pod's own required terms with the placement's:
// the result matches a node only if both would. Either side empty means no
// constraint from that side.
func MergeRequiredTerms(pod, placement []corev1.NodeSelectorTerm) []corev1.NodeSelectorTerm {
	if len(pod) == 0 {
		return placement
	}
	if len(placement) == 0 {
		return pod
	}
	out := make([]corev1.NodeSelectorTerm, 0, len(pod)*len(placement))
	for _, a := range pod {
		for _, b := range placement {
			out = append(out, corev1.NodeSelectorTerm{
				MatchExpressions: append(append([]corev1.NodeSelectorRequirement{}, a.MatchExpressions...), b.MatchExpressions...),
				MatchFields:      append(append([]corev1.NodeSelectorRequirement{}, a.MatchFields...), b.MatchFields...),
			})
		}
	}
	return out
}
