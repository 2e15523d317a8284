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
