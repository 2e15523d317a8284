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

// Package selector turns the label-selector syntax people type after
// --selector into the NodeSelector a NamespaceOffloading's clusterSelector
// holds: each --selector is one term, terms are ORed, and the comma-separated
// requirements inside one selector are ANDed, like node affinity.
package selector

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
)

// Syntax reminds people what one --selector may contain; error messages end
// with it so the fix is on the same line as the problem.
const Syntax = `write one term per --selector, e.g. 'topology.liqo.io/region=south', 'env in (prod,staging),!legacy', 'tier notin (edge)'`

// Parse converts the values of a repeated --selector flag into a
// clusterSelector. No value gives nil: the namespace goes to every peer.
func Parse(flag string, exprs []string) (*corev1.NodeSelector, error) {
	if len(exprs) == 0 {
		return nil, nil
	}
	ns := &corev1.NodeSelector{}
	for _, expr := range exprs {
		term, err := parseTerm(expr)
		if err != nil {
			return nil, fmt.Errorf("--%s %q: %w: %s", flag, expr, err, Syntax)
		}
		ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
	}
	// The same validation the scheduler applies, so the written selector is
	// one policies.SelectedClusters accepts.
	if _, err := nodeaffinity.NewNodeSelector(ns); err != nil {
		return nil, fmt.Errorf("--%s: %w: %s", flag, err, Syntax)
	}
	return ns, nil
}

func parseTerm(expr string) (corev1.NodeSelectorTerm, error) {
	if strings.TrimSpace(expr) == "" {
		return corev1.NodeSelectorTerm{}, fmt.Errorf("empty selector")
	}
	sel, err := labels.Parse(expr)
	if err != nil {
		return corev1.NodeSelectorTerm{}, err
	}
	reqs, _ := sel.Requirements()
	if len(reqs) == 0 {
		return corev1.NodeSelectorTerm{}, fmt.Errorf("no requirement")
	}
	term := corev1.NodeSelectorTerm{}
	for _, r := range reqs {
		nsr, err := requirement(r)
		if err != nil {
			return corev1.NodeSelectorTerm{}, err
		}
		term.MatchExpressions = append(term.MatchExpressions, nsr)
	}
	return term, nil
}

// requirement maps a label requirement onto a node selector requirement.
// "!=" becomes NotIn, which like the label selector also matches nodes that
// lack the key.
func requirement(r labels.Requirement) (corev1.NodeSelectorRequirement, error) {
	values := r.ValuesUnsorted()
	sort.Strings(values)
	out := corev1.NodeSelectorRequirement{Key: r.Key(), Values: values}
	switch r.Operator() {
	case selection.Equals, selection.DoubleEquals, selection.In:
		out.Operator = corev1.NodeSelectorOpIn
	case selection.NotEquals, selection.NotIn:
		out.Operator = corev1.NodeSelectorOpNotIn
	case selection.Exists:
		out.Operator = corev1.NodeSelectorOpExists
	case selection.DoesNotExist:
		out.Operator = corev1.NodeSelectorOpDoesNotExist
	case selection.GreaterThan:
		out.Operator = corev1.NodeSelectorOpGt
	case selection.LessThan:
		out.Operator = corev1.NodeSelectorOpLt
	default:
		return out, fmt.Errorf("operator %q has no node selector equivalent", r.Operator())
	}
	if len(out.Values) == 0 {
		out.Values = nil
	}
	return out, nil
}
