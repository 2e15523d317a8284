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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func list(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

func TestMissingFromOffer(t *testing.T) {
	g := NewWithT(t)
	offer := list("cpu", "4", "memory", "8Gi", "pods", "10")
	g.Expect(MissingFromOffer(offer, list("cpu", "3"), list("cpu", "1", "pods", "1"))).To(BeEmpty(), "exactly the offer fits")
	missing := MissingFromOffer(offer, list("cpu", "3500m"), list("cpu", "1", "memory", "1Gi"))
	g.Expect(DescribeResources(missing)).To(Equal("cpu 500m"))
	g.Expect(DescribeResources(MissingFromOffer(offer, nil, list("nvidia.com/gpu", "1")))).To(Equal("nvidia.com/gpu 1"),
		"an extended resource that was not offered is not there to take")
	g.Expect(MissingFromOffer(offer, nil, list("ephemeral-storage", "1Gi"))).To(BeEmpty(), "a Kubernetes resource the offer leaves out is not limited")
}

func TestPodRequestsCountsInitContainersAndOnePod(t *testing.T) {
	g := NewWithT(t)
	spec := &corev1.PodSpec{
		InitContainers: []corev1.Container{{Name: "init", Resources: corev1.ResourceRequirements{Requests: list("cpu", "2")}}},
		Containers: []corev1.Container{
			{Name: "a", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m", "memory", "1Gi")}},
			{Name: "b", Resources: corev1.ResourceRequirements{Requests: list("cpu", "500m")}},
		},
	}
	g.Expect(DescribeResources(PodRequests(spec))).To(Equal("cpu 2, memory 1Gi, pods 1"))
}

func TestPodRequestsDefaultsRequestsFromLimitsAsTheAPIServerDoes(t *testing.T) {
	g := NewWithT(t)
	spec := &corev1.PodSpec{Containers: []corev1.Container{
		{Name: "limits-only", Resources: corev1.ResourceRequirements{Limits: list("cpu", "2", "memory", "1Gi")}},
		{Name: "both", Resources: corev1.ResourceRequirements{Requests: list("cpu", "100m"), Limits: list("cpu", "1")}},
	}}
	g.Expect(DescribeResources(PodRequests(spec))).To(Equal("cpu 2100m, memory 1Gi, pods 1"),
		"a limits-only container requests its limits; an explicit request stays")
	g.Expect(spec.Containers[0].Resources.Requests).To(BeNil(), "the caller's spec is left alone")
}

func TestPodRequestsCountsSidecarsAndOverhead(t *testing.T) {
	g := NewWithT(t)
	always := corev1.ContainerRestartPolicyAlways
	spec := &corev1.PodSpec{
		Overhead: list("cpu", "250m"),
		InitContainers: []corev1.Container{
			{Name: "sidecar", RestartPolicy: &always, Resources: corev1.ResourceRequirements{Limits: list("cpu", "1")}},
			{Name: "init", Resources: corev1.ResourceRequirements{Requests: list("cpu", "1")}},
		},
		Containers: []corev1.Container{{Name: "a", Resources: corev1.ResourceRequirements{Requests: list("cpu", "1")}}},
	}
	// The sidecar runs beside the containers: 1 + 1, against 1 + 1 for the init; plus the overhead.
	g.Expect(DescribeResources(PodRequests(spec))).To(Equal("cpu 2250m, pods 1"))
}

func TestOfferLimitsAlwaysCountPods(t *testing.T) {
	g := NewWithT(t)
	g.Expect(DescribeResources(OfferLimits(list("cpu", "4")))).To(Equal("cpu 4, pods 110"), "a fixed offer without pods admits what a node does")
	g.Expect(DescribeResources(OfferLimits(list("cpu", "4", "pods", "3")))).To(Equal("cpu 4, pods 3"))
	used := list("pods", "110")
	g.Expect(DescribeResources(MissingFromOffer(OfferLimits(list("cpu", "4")), used, PodRequests(&corev1.PodSpec{})))).To(Equal("pods 1"))
}
