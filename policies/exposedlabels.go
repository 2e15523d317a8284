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
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// LabelConflict is an exposed key the resold virtual nodes disagree on:
// Values maps each value to the nodes that carry it.
type LabelConflict struct {
	Key    string
	Values map[string][]string
}

// String says which node carries which value: "liqo-milan=eu-south, liqo-naples=eu-west".
func (c LabelConflict) String() string {
	values := make([]string, 0, len(c.Values))
	for v := range c.Values {
		values = append(values, v)
	}
	sort.Strings(values)
	parts := make([]string, 0, len(values))
	for _, v := range values {
		parts = append(parts, fmt.Sprintf("%s=%q", strings.Join(c.Values[v], ","), v))
	}
	return strings.Join(parts, ", ")
}

// ExposedLabels is what a broker's offer to consumerID derives for keys:
// for each key, the value the virtual nodes it resells (ResellableNodes'
// set) carry, a union across its providers. A key none of them carries is
// left out; so is one they carry with different values, returned as a
// conflict, because the consumer's node can carry one value and the
// broker's scheduler, not the consumer's pod, picks the provider. Keys that
// are not label keys, or that a virtual node sets itself, are never derived.
func ExposedLabels(nodes []corev1.Node, consumerID string, keys []string) (map[string]string, []LabelConflict) {
	reserved := virtualkubeletv1alpha1.ReservedLabelKeys()
	seen := map[string]map[string][]string{}
	for i := range nodes {
		n := &nodes[i]
		if !resellable(n, consumerID) {
			continue
		}
		for _, key := range keys {
			value, ok := n.Labels[key]
			if !ok || slices.Contains(reserved, key) || len(validation.IsQualifiedName(key)) > 0 {
				continue
			}
			if seen[key] == nil {
				seen[key] = map[string][]string{}
			}
			seen[key][value] = append(seen[key][value], n.Name)
		}
	}
	exposed := map[string]string{}
	var conflicts []LabelConflict
	for key, values := range seen {
		if len(values) > 1 {
			for v := range values {
				sort.Strings(values[v])
			}
			conflicts = append(conflicts, LabelConflict{Key: key, Values: values})
			continue
		}
		for v := range values {
			exposed[key] = v
		}
	}
	sort.Slice(conflicts, func(i, j int) bool { return conflicts[i].Key < conflicts[j].Key })
	return exposed, conflicts
}

// ExposedLabelConflictMessage explains conflicts and how to resolve them.
func ExposedLabelConflictMessage(conflicts []LabelConflict) string {
	parts := make([]string, 0, len(conflicts))
	for _, c := range conflicts {
		parts = append(parts, fmt.Sprintf("%s left out: the providers' virtual nodes disagree (%s)", c.Key, c))
	}
	return strings.Join(parts, "; ") +
		": a node carries one value, and this cluster's scheduler, not the consumer's pods, picks the provider; give the providers' offers the same value, set the key in spec.labels, or remove it from spec.exposedLabelKeys"
}

// ParseExposedLabelKeys reads a comma-separated list of label keys (the
// CLI's --expose-labels) and refuses what admission would: a key that is not
// a label key, one a virtual node sets itself, or one listed twice.
func ParseExposedLabelKeys(list string) ([]string, error) {
	reserved := virtualkubeletv1alpha1.ReservedLabelKeys()
	var keys []string
	for _, key := range strings.Split(list, ",") {
		key = strings.TrimSpace(key)
		switch {
		case key == "":
			return nil, fmt.Errorf("an empty label key in %q: list keys separated by single commas", list)
		case len(validation.IsQualifiedName(key)) > 0:
			return nil, fmt.Errorf("%q is not a label key (%s)", key, strings.Join(validation.IsQualifiedName(key), "; "))
		case slices.Contains(reserved, key):
			return nil, fmt.Errorf("%q is set by the virtual node itself (or marks brokered capacity) and cannot be exposed; reserved keys: %s", key, strings.Join(reserved, ", "))
		case slices.Contains(keys, key):
			return nil, fmt.Errorf("%q is listed twice", key)
		}
		keys = append(keys, key)
	}
	return keys, nil
}
