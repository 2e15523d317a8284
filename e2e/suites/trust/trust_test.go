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

package trust_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// forbidden is one way a consumer could try to become root on the provider,
// and the field the denial must name.
type forbidden struct {
	name, field string
	mutate      func(*corev1.PodSpec)
}

func forbiddenFields(controlPlaneNode string) []forbidden {
	return []forbidden{
		{"privileged", "spec.pod.containers[0].securityContext.privileged", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
		}},
		{"hostPath /", "spec.pod.volumes[0].hostPath", func(s *corev1.PodSpec) {
			s.Volumes = []corev1.Volume{{Name: "root", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/"}}}}
			s.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "root", MountPath: "/host"}}
		}},
		{"hostNetwork", "spec.pod.hostNetwork", func(s *corev1.PodSpec) { s.HostNetwork = true }},
		{"hostPID", "spec.pod.hostPID", func(s *corev1.PodSpec) { s.HostPID = true }},
		{"hostIPC", "spec.pod.hostIPC", func(s *corev1.PodSpec) { s.HostIPC = true }},
		{"hostPort", "spec.pod.containers[0].ports[0].hostPort", func(s *corev1.PodSpec) {
			s.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 22, HostPort: 22}}
		}},
		{"SYS_ADMIN", "spec.pod.containers[0].securityContext.capabilities.add[0]", func(s *corev1.PodSpec) {
			s.Containers[0].SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"SYS_ADMIN"}}}
		}},
		{"nodeName", "spec.pod.nodeName", func(s *corev1.PodSpec) { s.NodeName = controlPlaneNode }},
		{"serviceAccountName", "spec.pod.serviceAccountName", func(s *corev1.PodSpec) { s.ServiceAccountName = "liqo-controller" }},
	}
}

func plainShadowPod(name string) *virtualkubeletv1alpha1.ShadowPod {
	return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: name, Labels: map[string]string{"app": "trust"}},
		Spec: virtualkubeletv1alpha1.ShadowPodSpec{Pod: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To(int64(0)),
			Containers:                    []corev1.Container{{Name: "web", Image: "nginx"}}}}}
}

func aNodeOfMilan(ctx context.Context) string {
	nodes := &corev1.NodeList{}
	Expect(milanC.List(ctx, nodes)).To(Succeed())
	Expect(nodes.Items).NotTo(BeEmpty())
	return nodes.Items[0].Name
}

// expectPolicyDenial checks a denial is the pod policy's, naming the field,
// the offer and its level.
func expectPolicyDenial(err error, field string) {
	GinkgoHelper()
	Expect(err).To(HaveOccurred())
	Expect(apierrors.IsInvalid(err)).To(BeTrue(), "a policy denial is 422 Invalid: %v", err)
	Expect(err.Error()).To(ContainSubstring(field + ": "))
	Expect(err.Error()).To(ContainSubstring("ResourceOffer liqo/rome (spec.podSecurityLevel baseline)"))
}

var _ = Describe("the trust boundary, with rome's own credentials on milan", Ordered, func() {
	It("labels the twin for Pod Security admission, which the API server enforces", func(ctx context.Context) {
		ns := &corev1.Namespace{}
		Expect(milanC.Get(ctx, client.ObjectKey{Name: twin}, ns)).To(Succeed())
		Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "baseline"))
		Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce-version", "latest"))
		// Even milan's admin, bypassing Spillway entirely, meets the level.
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "admin-privileged"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
				SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}}}
		err := milanC.Create(ctx, pod, client.DryRunAll)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(`violates PodSecurity "baseline:latest"`))
	})

	It("denies each forbidden pod field on CREATE, naming it", func(ctx context.Context) {
		for i, f := range forbiddenFields(aNodeOfMilan(ctx)) {
			sp := plainShadowPod(fmt.Sprintf("create-%d", i))
			f.mutate(&sp.Spec.Pod)
			start := time.Now()
			err := tenantC.Create(ctx, sp)
			expectPolicyDenial(err, f.field)
			GinkgoWriter.Printf("CREATE %-18s denied in %v: %s\n", f.name, time.Since(start).Round(time.Millisecond), f.field)
		}
		sps := &virtualkubeletv1alpha1.ShadowPodList{}
		Expect(milanC.List(ctx, sps, client.InNamespace(twin))).To(Succeed())
		Expect(sps.Items).To(BeEmpty(), "nothing was stored")
	})

	It("denies the same fields through UPDATE of an admitted ShadowPod", func(ctx context.Context) {
		sp := plainShadowPod("admitted")
		Expect(tenantC.Create(ctx, sp)).To(Succeed())
		for _, f := range forbiddenFields(aNodeOfMilan(ctx)) {
			var err error
			// milan's status writes move the resourceVersion: read again on a conflict.
			for range 10 {
				changed := &virtualkubeletv1alpha1.ShadowPod{}
				Expect(tenantC.Get(ctx, client.ObjectKeyFromObject(sp), changed)).To(Succeed())
				f.mutate(&changed.Spec.Pod)
				if err = tenantC.Update(ctx, changed); !apierrors.IsConflict(err) {
					break
				}
			}
			expectPolicyDenial(err, f.field)
			Expect(err.Error()).To(ContainSubstring(": cannot change"), "the pod update rules refuse it too")
			GinkgoWriter.Printf("UPDATE %-18s denied: %s\n", f.name, f.field)
		}
		// What a running pod may change still goes through.
		Eventually(func() error {
			got := &virtualkubeletv1alpha1.ShadowPod{}
			if err := tenantC.Get(ctx, client.ObjectKeyFromObject(sp), got); err != nil {
				return err
			}
			got.Labels["version"] = "2"
			got.Spec.Pod.Containers[0].Image = "nginx:1.29"
			return tenantC.Update(ctx, got)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		pod := &corev1.Pod{}
		Eventually(func(g Gomega) {
			g.Expect(milanC.Get(ctx, client.ObjectKeyFromObject(sp), pod)).To(Succeed())
			g.Expect(pod.Spec.Containers[0].Image).To(Equal("nginx:1.29"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(pod.Spec.ServiceAccountName).To(Equal("default"))
		Expect(pod.Spec.Containers[0].SecurityContext).To(BeNil())
	})

	It("never admits more than the offer when 50 creates race", func(ctx context.Context) {
		// A fixed offer: 2 CPUs. Each ShadowPod states only a 100m limit, which
		// the API server would turn into a 100m request: 20 fit. The ShadowPod
		// admitted above requests nothing.
		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
		patch := client.MergeFrom(offer.DeepCopy())
		offer.Spec.Resources = &sharingv1alpha1.OfferedResources{Limits: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("8Gi")}}
		Expect(milanC.Patch(ctx, offer, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(milanC.Get(ctx, client.ObjectKeyFromObject(offer), offer)).To(Succeed())
			g.Expect(offer.Status.Offered.Cpu().String()).To(Equal("2"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		// The webhook decides on its manager's cache, which may not show the
		// new offer yet: a dry run that only a 2-CPU offer refuses tells when
		// it does (a dry run holds no room).
		Eventually(func(g Gomega) {
			probe := plainShadowPod("offer-probe")
			probe.Spec.Pod.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2100m")}
			err := tenantC.Create(ctx, probe, client.DryRunAll)
			g.Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
			g.Expect(err.Error()).To(ContainSubstring("(offered cpu 2,"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		const creates, fits = 50, 20
		var (
			mu       sync.Mutex
			admitted []string
			denied   []string
			other    []error
			wg       sync.WaitGroup
		)
		start := time.Now()
		for i := range creates {
			wg.Add(1)
			go func() {
				defer GinkgoRecover()
				defer wg.Done()
				sp := plainShadowPod(fmt.Sprintf("race-%02d", i))
				sp.Spec.Pod.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
				err := tenantC.Create(ctx, sp)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					admitted = append(admitted, sp.Name)
				case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "missing cpu 100m"):
					denied = append(denied, sp.Name)
				default:
					other = append(other, err)
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		GinkgoWriter.Printf("50 concurrent creates against 2 CPU (100m each): %d admitted, %d denied for cpu, %d other errors, in %v\n",
			len(admitted), len(denied), len(other), elapsed.Round(time.Millisecond))
		AddReportEntry("concurrent creates", fmt.Sprintf("admitted %d, denied %d, other %d, %v", len(admitted), len(denied), len(other), elapsed))
		Expect(other).To(BeEmpty())
		Expect(admitted).To(HaveLen(fits), "exactly what fits the offer")
		Expect(denied).To(HaveLen(creates - fits))

		// What milan stores agrees: the consumer's ShadowPods sum to the offer.
		sps := &virtualkubeletv1alpha1.ShadowPodList{}
		Expect(milanC.List(ctx, sps, client.InNamespace(twin), client.MatchingLabels{"app": "trust"})).To(Succeed())
		total := resource.Quantity{}
		for _, sp := range sps.Items {
			total.Add(sp.Spec.Pod.Containers[0].Resources.Limits[corev1.ResourceCPU])
		}
		Expect(total.Cmp(resource.MustParse("2"))).To(BeNumerically("<=", 0), "stored ShadowPods ask for %s", total.String())
	})

	It("holds a twin to the restricted level once the offer asks for it", func(ctx context.Context) {
		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
		patch := client.MergeFrom(offer.DeepCopy())
		offer.Spec.PodSecurityLevel = sharingv1alpha1.PodSecurityRestricted
		offer.Spec.Resources = nil
		Expect(milanC.Patch(ctx, offer, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			ns := &corev1.Namespace{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Name: twin}, ns)).To(Succeed())
			g.Expect(ns.Labels).To(HaveKeyWithValue("pod-security.kubernetes.io/enforce", "restricted"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		err := tenantC.Create(ctx, plainShadowPod("root-nginx"))
		Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("spec.podSecurityLevel restricted"))
		Expect(err.Error()).To(ContainSubstring("spec.pod.containers[0].securityContext.runAsNonRoot"))
	})
})
