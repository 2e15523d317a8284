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
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// BrokerOffloading is the NamespaceOffloading spec a broker generates in a
// consumer's twin: its pods run only on the virtual nodes the broker's offer
// to that consumer counts (ResellableFree), so they go where the capacity
// came from and never back to the consumer or to another broker.
func BrokerOffloading(consumerID string) offloadingv1alpha1.NamespaceOffloadingSpec {
	return offloadingv1alpha1.NamespaceOffloadingSpec{
		NamespaceMappingStrategy: offloadingv1alpha1.DefaultNameMappingStrategy,
		PodOffloadingStrategy:    offloadingv1alpha1.RemotePodOffloadingStrategy,
		ClusterSelector: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: virtualkubeletv1alpha1.TypeLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{virtualkubeletv1alpha1.TypeVirtualNode}},
			{Key: virtualkubeletv1alpha1.RemoteClusterIDLabel, Operator: corev1.NodeSelectorOpNotIn, Values: []string{consumerID}},
			{Key: virtualkubeletv1alpha1.BrokeredLabel, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"true"}},
		}}}},
	}
}

// WithoutConsumerNodeChoice clears what a consumer's pod spec says about the
// provider's nodes: nodeSelector, node affinity, and every toleration that
// would let the pod onto a virtual node (a wildcard toleration included).
// A consumer places its pods on its own virtual node, never inside the
// provider: there the provider's scheduler decides, and on a broker the
// broker's own placement (BrokerOffloading), so a consumer can neither pick
// a broker's providers nor have a plain provider pass its pods on to the
// provider's own virtual nodes. Pod (anti-)affinity is kept.
func WithoutConsumerNodeChoice(spec *corev1.PodSpec) {
	spec.NodeSelector = nil
	if spec.Affinity != nil {
		spec.Affinity.NodeAffinity = nil
		if spec.Affinity.PodAffinity == nil && spec.Affinity.PodAntiAffinity == nil {
			spec.Affinity = nil
		}
	}
	spec.Tolerations = WithoutVirtualNodeTolerations(spec.Tolerations)
}

// WithoutVirtualNodeTolerations drops the tolerations that could tolerate
// the virtual-node taint: of its key, or of every key (empty key, Exists),
// with its effect or every effect. Values are not compared: dropping one
// that would not have matched costs nothing.
func WithoutVirtualNodeTolerations(in []corev1.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range in {
		keyMatches := t.Key == offloadingv1alpha1.VirtualNodeTaintKey || (t.Key == "" && t.Operator == corev1.TolerationOpExists)
		effectMatches := t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute
		if keyMatches && effectMatches {
			continue
		}
		out = append(out, t)
	}
	return out
}
