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

package plan

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// Live is a running cluster the plan reads pods and nodes from.
type Live struct {
	// Cluster is the fleet folder of the cluster Reader reads.
	Cluster string
	Reader  client.Reader
}

// violations lists the running pods of a namespace that sit on a node the
// placement for strategy and selector (policies.PlacementFor) does not allow.
func (l *Live) violations(ctx context.Context, ns string, strategy offloadingv1alpha1.PodOffloadingStrategy, selector *corev1.NodeSelector) ([]Change, error) {
	placement := policies.PlacementFor(strategy, selector)
	allowed, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: placement.NodeSelectorTerms})
	if err != nil {
		return nil, err
	}
	var pods corev1.PodList
	if err := l.Reader.List(ctx, &pods, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing pods in %s: %w", ns, err)
	}
	nodes := map[string]*corev1.Node{}
	var out []Change
	for i := range pods.Items {
		pod := &pods.Items[i]
		if pod.Spec.NodeName == "" || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		node, seen := nodes[pod.Spec.NodeName]
		if !seen {
			node = &corev1.Node{}
			if err := l.Reader.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node); apierrors.IsNotFound(err) {
				node = nil
			} else if err != nil {
				return nil, fmt.Errorf("reading node %s: %w", pod.Spec.NodeName, err)
			}
			nodes[pod.Spec.NodeName] = node
		}
		if node == nil || allowed.Match(node) {
			continue
		}
		out = append(out, Change{Kind: PlacementViolation, Namespace: ns, Message: fmt.Sprintf(
			"pod %s runs on %s, which the new placement does not allow (%s): it keeps running until deleted, then is scheduled on an allowed node",
			pod.Name, node.Name, podsRun(strategy))})
	}
	return out, nil
}
