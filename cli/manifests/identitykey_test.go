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

package manifests

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func TestIdentityKey(t *testing.T) {
	long := strings.Repeat("edge", 12) // 48 characters, cut to 40 by TenantName
	for _, tc := range []struct {
		provider, consumer, want string
	}{
		{"milan", "rome", "spillway-milan-identity-rome"},
		{"europe-rome-edge", "europe-cloud", "spillway-europe-rome-edge-identity-europe-cloud"},
		// Names people type are folded the way tenant names are.
		{"Milan", "Rome_1", "spillway-milan-identity-rome-1"},
		{long, "rome", "spillway-edgeedgeedgeedgeedgeedgeedgeedgeedgeedge-identity-rome"},
		{long, long, "spillway-edgeedgeedgeedgeedgeedgeedgeedgeedgeedge-id-00b638caa8"},
	} {
		got := IdentityKey(tc.provider, tc.consumer)
		if got != tc.want {
			t.Errorf("IdentityKey(%q, %q) = %q, want %q", tc.provider, tc.consumer, got, tc.want)
		}
	}
	if IdentityKey(long, long[:30]+"a") == IdentityKey(long, long[:30]+"b") {
		t.Errorf("two consumers whose names differ past the cut share one key")
	}
}

// Whatever the cluster names, the key is a DNS-1123 label: a valid Secret
// name for the Kubernetes provider, and a valid key for Vault, AWS, GCP and
// Azure.
func FuzzIdentityKey(f *testing.F) {
	f.Add("milan", "rome")
	f.Add("", "")
	f.Add("---", "Ünïcode/with/slashes")
	f.Add(strings.Repeat("a", 200), strings.Repeat("b-", 100))
	f.Fuzz(func(t *testing.T, provider, consumer string) {
		key := IdentityKey(provider, consumer)
		if errs := validation.IsDNS1123Label(key); len(errs) > 0 {
			t.Fatalf("IdentityKey(%q, %q) = %q: %v", provider, consumer, key, errs)
		}
		if !strings.HasPrefix(key, "spillway-") {
			t.Fatalf("IdentityKey(%q, %q) = %q lacks the spillway- prefix", provider, consumer, key)
		}
	})
}
