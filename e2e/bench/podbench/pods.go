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

package podbench

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Mode is the path the pods take.
type Mode string

const (
	// Vanilla pods are created directly in the provider.
	Vanilla Mode = "vanilla"
	// Offloaded pods are created in the consumer and run in the provider
	// through the virtual node.
	Offloaded Mode = "offloaded"
	// TwoHops pods are created in the consumer and run in the provider
	// through the broker: rome's virtual node liqo-genoa, then genoa's
	// liqo-milan.
	TwoHops Mode = "two-hops"
	// Local pods are created in the consumer and run on its own nodes, no
	// peering involved. They are the reference for the consumer's manager's
	// memory (issue 17, target 3): what it holds for pods of its own
	// cluster, which it caches whether or not any is offloaded. They are
	// not a latency path and are left out of the tables and plots.
	Local Mode = "local"
)

// RunLabel selects the pods of one run.
const RunLabel = "bench.spillway.dev/run"

// Pods returns n identical bare pods for one run. Offloaded pods carry what the
// pod webhook will add (issue 5): the virtual-node toleration and a required
// affinity to virtual nodes, so none lands on the consumer's own nodes.
func Pods(mode Mode, run string, n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%05d", run, i), Labels: map[string]string{RunLabel: run}},
			Spec: corev1.PodSpec{
				// Cleanup between runs is not measured; no need to wait.
				TerminationGracePeriodSeconds: ptr.To(int64(0)),
				Containers:                    []corev1.Container{{Name: "web", Image: "nginx"}},
			},
		}
		if mode == Offloaded || mode == TwoHops {
			p.Spec.Tolerations = []corev1.Toleration{policies.VirtualNodeToleration()}
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
				NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
					Key: discoveryv1alpha1.TypeLabel, Operator: corev1.NodeSelectorOpIn, Values: []string{discoveryv1alpha1.TypeVirtualNode},
				}}}},
			}}}
		}
		out[i] = p
	}
	return out
}
