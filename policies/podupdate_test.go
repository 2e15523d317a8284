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
	"k8s.io/utils/ptr"
)

func TestCheckPodUpdateAllowsWhatARunningPodMayChange(t *testing.T) {
	g := NewWithT(t)
	old := plainSpec(func(s *corev1.PodSpec) {
		s.ActiveDeadlineSeconds = ptr.To(int64(600))
		s.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}}
		s.SchedulingGates = []corev1.PodSchedulingGate{{Name: "wait"}}
	})
	updated := old.DeepCopy()
	updated.Containers[0].Image = "nginx:1.29"
	updated.ActiveDeadlineSeconds = ptr.To(int64(300))
	updated.Tolerations = append(updated.Tolerations, corev1.Toleration{Key: "b", Operator: corev1.TolerationOpExists})
	updated.SchedulingGates = nil
	g.Expect(CheckPodUpdate(old, updated)).To(BeEmpty())
}

func TestCheckPodUpdateNamesWhatMayNotChange(t *testing.T) {
	g := NewWithT(t)
	old := plainSpec(func(s *corev1.PodSpec) {
		s.ActiveDeadlineSeconds = ptr.To(int64(600))
		s.Tolerations = []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists}}
	})
	updated := old.DeepCopy()
	updated.HostNetwork = true
	updated.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	updated.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}
	updated.ActiveDeadlineSeconds = ptr.To(int64(900))
	updated.Tolerations = nil
	updated.Volumes = []corev1.Volume{{Name: "root"}}
	g.Expect(fields(CheckPodUpdate(old, updated))).To(ConsistOf("hostNetwork", "containers[0].securityContext", "containers[0].resources",
		"activeDeadlineSeconds", "tolerations[0]", "volumes"))
	more := old.DeepCopy()
	more.Containers = append(more.Containers, corev1.Container{Name: "sidecar", Image: "busybox"})
	g.Expect(fields(CheckPodUpdate(old, more))).To(ConsistOf("containers"))
}
