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

package namespaceoffloading

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestLabelHeldByOthers(t *testing.T) {
	const label = "liqo.io/scheduling-enabled"
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(fields)}
	}
	withLabel := `{"f:metadata":{"f:labels":{".":{},"f:liqo.io/scheduling-enabled":{}}}}`
	for _, tc := range []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    bool
	}{
		{"nobody", nil, false},
		{"only us", []metav1.ManagedFieldsEntry{entry("spillway-controller", withLabel)}, false},
		{"flux from git", []metav1.ManagedFieldsEntry{entry("spillway-controller", withLabel), entry("kustomize-controller", withLabel)}, true},
		{"kubectl label", []metav1.ManagedFieldsEntry{entry("kubectl-label", withLabel)}, true},
		{"another label only", []metav1.ManagedFieldsEntry{entry("kubectl-label", `{"f:metadata":{"f:labels":{"f:team":{}}}}`)}, false},
		{"no labels at all", []metav1.ManagedFieldsEntry{entry("kube-controller-manager", `{"f:status":{"f:phase":{}}}`)}, false},
		{"unreadable record", []metav1.ManagedFieldsEntry{entry("odd", `not json`)}, true},
		{"a record without fields", []metav1.ManagedFieldsEntry{{Manager: "odd"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := labelHeldByOthers(tc.entries, label, "spillway-controller"); got != tc.want {
				t.Fatalf("labelHeldByOthers = %v, want %v", got, tc.want)
			}
		})
	}
}
