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
	"errors"
	"fmt"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestEvictionRefusal(t *testing.T) {
	budget := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	budget.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: "The disruption budget web needs 2 healthy pods and has 2 currently"}}
	for _, tc := range []struct {
		name    string
		err     error
		why     string
		refused bool
	}{
		{"evicted", nil, "", false},
		{"a budget, named", budget, "The disruption budget web needs 2 healthy pods and has 2 currently", true},
		{"a budget, wrapped", fmt.Errorf("evicting: %w", budget), "The disruption budget web needs 2 healthy pods and has 2 currently", true},
		{"429 without a cause", apierrors.NewTooManyRequests("slow down", 1), "slow down", true},
		{"not found", apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "web"), "", false},
		{"another error", errors.New("connection refused"), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			why, refused := EvictionRefusal(tc.err)
			if why != tc.why || refused != tc.refused {
				t.Fatalf("EvictionRefusal = %q, %v; want %q, %v", why, refused, tc.why, tc.refused)
			}
		})
	}
}
