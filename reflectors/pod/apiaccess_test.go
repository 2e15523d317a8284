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

package pod

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func podWithToken() *corev1.Pod {
	mount := corev1.VolumeMount{Name: "kube-api-access-x7k2", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "liqo-demo"}, Spec: corev1.PodSpec{
		ServiceAccountName: "builder",
		Volumes:            []corev1.Volume{{Name: "kube-api-access-x7k2", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{}}}},
		Containers:         []corev1.Container{{Name: "web", VolumeMounts: []corev1.VolumeMount{mount}}},
	}}
}

func TestWithAPIAccessMountsTheCarriedTokenWhereTheLocalOneWas(t *testing.T) {
	g := NewWithT(t)
	local := podWithToken()
	spec := RemotePodSpec(local)
	g.Expect(spec.Volumes).To(BeEmpty(), "the consumer's projected token means nothing on the provider")
	WithAPIAccess(&spec, local, "https://api.rome.example.com:6443")
	g.Expect(spec.Volumes).To(ConsistOf(HaveField("VolumeSource.Secret.SecretName", "liqo-sa-token-builder")))
	g.Expect(spec.Containers[0].VolumeMounts).To(Equal(local.Spec.Containers[0].VolumeMounts))
	g.Expect(spec.AutomountServiceAccountToken).To(HaveValue(BeFalse()), "the provider's token would shadow the consumer's")
	g.Expect(spec.Containers[0].Env).To(ConsistOf(
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: "api.rome.example.com"},
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: "6443"}))
}

func TestWithAPIAccessLeavesPodsWithoutTokenAndDisabledSupportAlone(t *testing.T) {
	g := NewWithT(t)
	local := podWithToken()
	spec := RemotePodSpec(local)
	WithAPIAccess(&spec, local, "")
	g.Expect(spec.Volumes).To(BeEmpty(), "--enable-apiserver-support=false")
	noToken := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}}}}
	spec = RemotePodSpec(noToken)
	WithAPIAccess(&spec, noToken, "https://api.rome.example.com:6443")
	g.Expect(spec.Volumes).To(BeEmpty())
	g.Expect(spec.Containers[0].Env).To(BeEmpty())
}

// A broker offloads onward a pod that already carries its consumer's
// address: the address is replaced, never listed twice (which the provider's
// API server refuses as a duplicate env name).
func TestWithAPIAccessThroughABrokerReplacesTheAddress(t *testing.T) {
	g := NewWithT(t)
	atBroker := podWithToken()
	atBroker.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "LANG", Value: "C"},
		{Name: "KUBERNETES_SERVICE_HOST", Value: "api.rome.example.com"}, {Name: "KUBERNETES_SERVICE_PORT", Value: "6443"}}
	spec := RemotePodSpec(atBroker)
	WithAPIAccess(&spec, atBroker, "https://api.genoa.example.com:443")
	g.Expect(spec.Containers[0].Env).To(Equal([]corev1.EnvVar{{Name: "LANG", Value: "C"},
		{Name: "KUBERNETES_SERVICE_HOST", Value: "api.genoa.example.com"}, {Name: "KUBERNETES_SERVICE_PORT", Value: "443"}}))
}
