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

package v1alpha1

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestDisplayQuantity(t *testing.T) {
	for _, tc := range []struct {
		name corev1.ResourceName
		q    string
		want string
	}{
		// kubectl get resourceoffers printed this as 61847529062.
		{corev1.ResourceMemory, "61847529062", "57.6Gi"},
		{corev1.ResourceMemory, "16Gi", "16Gi"},
		{corev1.ResourceMemory, "1536Mi", "1.5Gi"},
		{corev1.ResourceMemory, "1073741823", "1Gi"},
		{corev1.ResourceMemory, "1000", "1000"},
		{corev1.ResourceMemory, "0", "0"},
		{corev1.ResourceEphemeralStorage, "107374182400", "100Gi"},
		{"hugepages-2Mi", "2097152", "2Mi"},
		{corev1.ResourceCPU, "4", "4"},
		{corev1.ResourceCPU, "3500m", "3.5"},
		{corev1.ResourceCPU, "15300m", "15.3"},
		{corev1.ResourceCPU, "1234m", "1.23"},
		{corev1.ResourceCPU, "500m", "500m"},
		{corev1.ResourceCPU, "0", "0m"},
		{corev1.ResourcePods, "110", "110"},
		{"nvidia.com/gpu", "1", "1"},
		{"example.com/fraction", "500m", "500m"},
	} {
		if got := DisplayQuantity(tc.name, resource.MustParse(tc.q)); got != tc.want {
			t.Errorf("DisplayQuantity(%s, %s) = %q, want %q", tc.name, tc.q, got, tc.want)
		}
	}
}
