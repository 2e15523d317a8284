//go:build e2e

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

package storage_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
)

// The lab's provisioner is what every other spec stands on: a claim of the
// default class, mounted by a pod, is provisioned by local-path-provisioner
// through a helper pod kwok completes, on the node the scheduler chose.
var _ = Describe("the lab's local-path provisioner", func() {
	It("binds a claim of the default class on the node its pod was scheduled to", func(ctx context.Context) {
		ns := "storage-localpath"
		namespace(ctx, milanC, ns)
		pvc := claim(ns, "data", nil)
		Expect(milanC.Create(ctx, pvc)).To(Succeed())
		Expect(pvc.Spec.StorageClassName).To(HaveValue(Equal(framework.LocalPathClass)), "the default class is local-path")
		Expect(milanC.Create(ctx, mountingPod(ns, "app", "data"))).To(Succeed())
		start := time.Now()
		pv := boundVolume(ctx, milanC, ns, "data")
		GinkgoWriter.Printf("local-path: claim Bound in %s\n", time.Since(start).Round(time.Millisecond))
		Expect(pv.Annotations).To(HaveKeyWithValue("pv.kubernetes.io/provisioned-by", framework.LocalPathProvisioner))
		Expect(pv.Spec.HostPath).NotTo(BeNil(), "local-path's default volume type is hostPath")
		pod := &corev1.Pod{}
		Eventually(func(g Gomega) {
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "app"}, pod)).To(Succeed())
			g.Expect(pod.Spec.NodeName).NotTo(BeEmpty())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(hostnameAffinity(pv)).To(Equal([]string{pod.Spec.NodeName}))
		By("the helper pod is gone once the volume is made")
		Eventually(func(g Gomega) {
			helpers := &corev1.PodList{}
			g.Expect(milanC.List(ctx, helpers, client.InNamespace("local-path-storage"))).To(Succeed())
			g.Expect(helpers.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})
})

// claim is a 1Gi ReadWriteOnce claim of the class (nil: the default).
func claim(ns, name string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: class,
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

// mountingPod is a pod that mounts the claim.
func mountingPod(ns, name, claimName string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "app", Image: "busybox",
				VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claimName}}}},
		},
	}
}

// boundVolume waits for the claim to be Bound and returns its volume.
func boundVolume(ctx context.Context, c client.Client, ns, name string) *corev1.PersistentVolume {
	pvc := &corev1.PersistentVolumeClaim{}
	Eventually(func(g Gomega) {
		g.Expect(c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pvc)).To(Succeed())
		g.Expect(pvc.Status.Phase).To(Equal(corev1.ClaimBound))
	}).WithContext(ctx).WithTimeout(60*time.Second).WithPolling(200*time.Millisecond).Should(Succeed(), "claim %s/%s Bound", ns, name)
	pv := &corev1.PersistentVolume{}
	Expect(c.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv)).To(Succeed())
	return pv
}

// hostnameAffinity lists the kubernetes.io/hostname values a volume is held to.
func hostnameAffinity(pv *corev1.PersistentVolume) []string {
	var out []string
	if pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	for _, t := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, e := range t.MatchExpressions {
			if e.Key == corev1.LabelHostname {
				out = append(out, e.Values...)
			}
		}
	}
	return out
}
