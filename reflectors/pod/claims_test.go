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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

func TestShadowPodsNameTheTwinOfAMovedClaim(t *testing.T) {
	g := NewWithT(t)
	claim := func(name, volume string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: volume}}
	}
	volume := func(name, twin string) *corev1.PersistentVolume {
		return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: map[string]string{
			policies.ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner, sharingv1alpha1.TwinClaimAnnotation: twin}}}
	}
	local := fake.NewClientBuilder().WithObjects(
		claim("moved", "pvc-m"), volume("pvc-m", "milan-id:shop-rome/move-123"),
		claim("plain", "pvc-p"), volume("pvc-p", "milan-id:shop-rome/plain"),
		claim("elsewhere", "pvc-e"), volume("pvc-e", "naples-id:shop-rome/move-456"),
		claim("pending", ""),
	).Build()
	h := &Handler{LocalPods: local, RemoteID: "milan-id"}
	spec := &corev1.PodSpec{}
	for _, name := range []string{"moved", "plain", "elsewhere", "pending", "missing"} {
		spec.Volumes = append(spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}})
	}
	spec.Volumes = append(spec.Volumes, corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	g.Expect(h.nameTwinClaims(context.Background(), "shop", "shop-rome", spec)).To(Succeed())
	var names []string
	for _, v := range spec.Volumes {
		if v.PersistentVolumeClaim != nil {
			names = append(names, v.PersistentVolumeClaim.ClaimName)
		}
	}
	g.Expect(names).To(Equal([]string{"move-123", "plain", "elsewhere", "pending", "missing"}),
		"only a claim whose twin is on this provider, in this namespace, is renamed")
}
