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
	"k8s.io/utils/ptr"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

const (
	baseline   = sharingv1alpha1.PodSecurityBaseline
	restricted = sharingv1alpha1.PodSecurityRestricted
)

// plainSpec is what the consumer sends for a plain nginx pod: baseline, not restricted.
func plainSpec(mutate ...func(*corev1.PodSpec)) *corev1.PodSpec {
	s := &corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}
	for _, m := range mutate {
		m(s)
	}
	return s
}

// restrictedSpec meets the restricted profile.
func restrictedSpec(mutate ...func(*corev1.PodSpec)) *corev1.PodSpec {
	s := plainSpec(func(s *corev1.PodSpec) {
		s.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
		s.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false),
			Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}, Add: []corev1.Capability{"NET_BIND_SERVICE"}}}
		s.Volumes = []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	})
	for _, m := range mutate {
		m(s)
	}
	return s
}

func fields(vs []PodViolation) []string {
	out := make([]string, 0, len(vs))
	for _, v := range vs {
		out = append(out, v.Field)
	}
	return out
}

func TestCheckPodBaselineNamesEachForbiddenField(t *testing.T) {
	cases := map[string]struct {
		mutate func(*corev1.PodSpec)
		field  string
	}{
		"privileged": {func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}, "containers[0].securityContext.privileged"},
		"hostNetwork": {func(s *corev1.PodSpec) { s.HostNetwork = true }, "hostNetwork"},
		"hostPID":     {func(s *corev1.PodSpec) { s.HostPID = true }, "hostPID"},
		"hostIPC":     {func(s *corev1.PodSpec) { s.HostIPC = true }, "hostIPC"},
		"hostPort": {func(s *corev1.PodSpec) {
			s.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: 22, HostPort: 22}}
		}, "containers[0].ports[1].hostPort"},
		"hostPath": {func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
		}, "volumes[0].hostPath"},
		"SYS_ADMIN": {func(s *corev1.PodSpec) {
			s.InitContainers = []corev1.Container{{Name: "init", SecurityContext: &corev1.SecurityContext{
				Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"CHOWN", "SYS_ADMIN"}}}}}
		}, "initContainers[0].securityContext.capabilities.add[1]"},
		"nodeName":       {func(s *corev1.PodSpec) { s.NodeName = "milan-control-plane" }, "nodeName"},
		"serviceAccount": {func(s *corev1.PodSpec) { s.ServiceAccountName = "liqo-controller" }, "serviceAccountName"},
		"unconfined": {func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined}}
		}, "securityContext.seccompProfile.type"},
		"sysctl": {func(s *corev1.PodSpec) {
			s.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "kernel.msgmax", Value: "1"}}}
		}, "securityContext.sysctls[0]"},
		"procMount": {func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{ProcMount: ptr.To(corev1.UnmaskedProcMount)}
		}, "containers[0].securityContext.procMount"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			vs := CheckPod(plainSpec(c.mutate), nil, baseline)
			g.Expect(fields(vs)).To(ConsistOf(c.field))
			g.Expect(vs[0].Fix).NotTo(BeEmpty(), "every denial says what to do")
		})
	}
}

func TestCheckPodAllowsWhatTheConsumerSendsForAPlainPod(t *testing.T) {
	g := NewWithT(t)
	g.Expect(CheckPod(plainSpec(func(s *corev1.PodSpec) { s.ServiceAccountName = "default" }), nil, baseline)).To(BeEmpty())
	g.Expect(CheckPod(plainSpec(func(s *corev1.PodSpec) {
		s.Containers[0].SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}}}
	}), nil, baseline)).To(BeEmpty(), "the baseline set may be added")
	g.Expect(CheckPod(restrictedSpec(), nil, restricted)).To(BeEmpty())
}

func TestCheckPodRestrictedAddsTheRestrictedProfile(t *testing.T) {
	g := NewWithT(t)
	g.Expect(fields(CheckPod(plainSpec(), nil, restricted))).To(ConsistOf(
		"containers[0].securityContext.allowPrivilegeEscalation", "containers[0].securityContext.runAsNonRoot",
		"containers[0].securityContext.seccompProfile.type", "containers[0].securityContext.capabilities.drop"))
	nfs := restrictedSpec(func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "share", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "x", Path: "/"}}})
	})
	g.Expect(fields(CheckPod(nfs, nil, restricted))).To(ConsistOf("volumes[1]"))
	g.Expect(CheckPod(nfs, nil, baseline)).To(BeEmpty(), "NFS volumes are baseline")
	root := restrictedSpec(func(s *corev1.PodSpec) { s.Containers[0].SecurityContext.RunAsUser = ptr.To(int64(0)) })
	g.Expect(fields(CheckPod(root, nil, restricted))).To(ConsistOf("containers[0].securityContext.runAsUser"))
	chown := restrictedSpec(func(s *corev1.PodSpec) {
		s.Containers[0].SecurityContext.Capabilities.Add = []corev1.Capability{"CHOWN"}
	})
	g.Expect(fields(CheckPod(chown, nil, restricted))).To(ConsistOf("containers[0].securityContext.capabilities.add[0]"))
}

func TestCheckPodChecksTheAppArmorAnnotation(t *testing.T) {
	g := NewWithT(t)
	vs := CheckPod(plainSpec(), map[string]string{"container.apparmor.security.beta.kubernetes.io/web": "unconfined"}, baseline)
	g.Expect(DescribePodViolations("spec.pod.", vs)).To(HavePrefix("metadata.annotations[container.apparmor.security.beta.kubernetes.io/web]: is \"unconfined\""))
}

func TestDescribePodViolationsNamesThePathInTheObject(t *testing.T) {
	g := NewWithT(t)
	vs := CheckPod(plainSpec(func(s *corev1.PodSpec) { s.HostPID = true; s.NodeName = "n" }), nil, baseline)
	msg := DescribePodViolations("spec.pod.", vs)
	g.Expect(msg).To(ContainSubstring(`spec.pod.nodeName: is "n"`))
	g.Expect(msg).To(ContainSubstring("spec.pod.hostPID: is true"))
}
