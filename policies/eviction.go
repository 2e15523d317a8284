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

	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// EvictionRefusal reads the answer to an eviction: refused is true when the
// API server refused it for a PodDisruptionBudget (429), which is progress
// to report and retry, not an error; why is the API server's word on which
// budget ("The disruption budget web needs 2 healthy pods and has 2
// currently"), or its message when it names none.
func EvictionRefusal(err error) (why string, refused bool) {
	if !apierrors.IsTooManyRequests(err) {
		return "", false
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		if d := status.Status().Details; d != nil {
			for _, c := range d.Causes {
				if c.Type == policyv1.DisruptionBudgetCause && c.Message != "" {
					return c.Message, true
				}
			}
		}
	}
	return err.Error(), true
}
