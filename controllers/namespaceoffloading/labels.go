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
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// labelHeldByOthers reports whether a field manager other than us records
// owning metadata.labels[label] in an object's managedFields: Flux applying
// it from git, or a person's kubectl label. A record that is not readable
// JSON counts as holding it, so we never remove a label on a guess.
func labelHeldByOthers(entries []metav1.ManagedFieldsEntry, label, us string) bool {
	for _, e := range entries {
		if e.Manager == us || e.FieldsV1 == nil {
			continue
		}
		var fields map[string]any
		if err := json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields); err != nil {
			return true
		}
		meta, _ := fields["f:metadata"].(map[string]any)
		labels, _ := meta["f:labels"].(map[string]any)
		if _, held := labels["f:"+label]; held {
			return true
		}
	}
	return false
}
