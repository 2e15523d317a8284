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

package reflection_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

var _ = Describe("configuration reflection", Ordered, func() {
	const ns = "config"
	BeforeAll(func(ctx context.Context) {
		offload(ctx, ns, offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, region("south"))
	})

	It("copies a ConfigMap to naples, follows its updates and its deletion", func(ctx context.Context) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "settings"}, Data: map[string]string{"mode": "v1"}}
		Expect(veniceC.Create(ctx, cm)).To(Succeed())
		copyOf := func(g Gomega) *corev1.ConfigMap {
			got := &corev1.ConfigMap{}
			g.Expect(naplesC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, got)).To(Succeed())
			return got
		}
		Eventually(func(g Gomega) {
			got := copyOf(g)
			g.Expect(got.Data).To(HaveKeyWithValue("mode", "v1"))
			g.Expect(got.Labels).To(HaveKeyWithValue("liqo.io/origin-cluster-id", veniceID.ClusterID))
			g.Expect(got.Labels).To(HaveKeyWithValue("liqo.io/destination-cluster-id", naplesID.ClusterID))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		cm.Data["mode"] = "v2"
		Expect(veniceC.Update(ctx, cm)).To(Succeed())
		Eventually(func(g Gomega) { g.Expect(copyOf(g).Data).To(HaveKeyWithValue("mode", "v2")) }).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		Expect(veniceC.Delete(ctx, cm)).To(Succeed())
		Eventually(func() bool {
			return apierrors.IsNotFound(naplesC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, &corev1.ConfigMap{}))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
		Expect(apierrors.IsNotFound(florenceC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "settings"}, &corev1.ConfigMap{}))).To(BeTrue())
	}, SpecTimeout(2*time.Minute))

	It("never copies an object marked liqo.io/skip-reflection, and leaves naples' own root CA alone", func(ctx context.Context) {
		skipped := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "local-only",
			Annotations: map[string]string{"liqo.io/skip-reflection": "true"}}, StringData: map[string]string{"k": "v"}}
		marker := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "shared"}, StringData: map[string]string{"k": "v"}}
		Expect(veniceC.Create(ctx, skipped)).To(Succeed())
		Expect(veniceC.Create(ctx, marker)).To(Succeed())
		// The unmarked Secret, created after, arriving proves the reflector has seen both.
		Eventually(func() error {
			return naplesC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shared"}, &corev1.Secret{})
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Consistently(func() bool {
			return apierrors.IsNotFound(naplesC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "local-only"}, &corev1.Secret{}))
		}).WithContext(ctx).WithTimeout(5 * time.Second).Should(BeTrue())
		rootCA := &corev1.ConfigMap{}
		Expect(naplesC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "kube-root-ca.crt"}, rootCA)).To(Succeed())
		Expect(rootCA.Labels).NotTo(HaveKey("liqo.io/origin-cluster-id"))
	}, SpecTimeout(time.Minute))

	It("counts the reflected objects in the seed's metrics", func(ctx context.Context) {
		port, err := venice.ExtraPort(0) // framework.StartManager's metrics port
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
			g.Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(body)).To(MatchRegexp(`liqo_virtual_kubelet_reflection_item_counter\{remote_cluster_id="%s",resource="secret"\} [1-9]`, naplesID.ClusterID))
			g.Expect(string(body)).To(ContainSubstring("liqo_virtual_kubelet_reflection_error_counter"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))
})

var _ = Describe("seed scenario: offloading a service", func() {
	It("gives the peers venice's Service with an EndpointSlice of venice's pods", func(ctx context.Context) {
		const ns = "service"
		offload(ctx, ns, offloadingv1alpha1.LocalPodOffloadingStrategy, nil)
		Expect(veniceC.Create(ctx, deployment(ns, "web", 2))).To(Succeed())
		Expect(veniceC.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}}}})).To(Succeed())
		var localIPs []string
		Eventually(func(g Gomega) {
			pods := runningPods(ctx, g, veniceC, ns, "web")
			g.Expect(pods).To(HaveLen(2))
			localIPs = nil
			for _, p := range pods {
				g.Expect(p.Spec.NodeName).To(HavePrefix("venice-"), "strategy Local keeps pods at home")
				g.Expect(p.Status.PodIP).NotTo(BeEmpty())
				localIPs = append(localIPs, p.Status.PodIP)
			}
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())

		for _, peer := range []client.Client{naplesC, florenceC} {
			Eventually(func(g Gomega) {
				svc := &corev1.Service{}
				g.Expect(peer.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, svc)).To(Succeed())
				slices := &discoveryv1.EndpointSliceList{}
				g.Expect(peer.List(ctx, slices, client.InNamespace(ns), client.MatchingLabels{discoveryv1.LabelServiceName: "web",
					discoveryv1.LabelManagedBy: "endpointslice.reflection.liqo.io"})).To(Succeed())
				var addresses []string
				for _, s := range slices.Items {
					for _, ep := range s.Endpoints {
						addresses = append(addresses, ep.Addresses...)
					}
				}
				g.Expect(addresses).To(ConsistOf(localIPs))
			}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		}
	}, SpecTimeout(3*time.Minute))
})
