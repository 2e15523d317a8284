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

package offloading_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// rotationSpec runs inside the ordered pod offloading container, while its
// Deployment's pods run on milan: rome's token for milan is rotated and the
// old one revoked, and every client of the peering follows.
func rotationSpec(ns, app string, twin *string) {
	It("follows a token rotation in every client: a new pod runs, logs work, no remote pod or node is recreated", func(ctx context.Context) {
		identity := client.ObjectKey{Namespace: "liqo", Name: sharingv1alpha1.IdentitySecretName("rome", "")}
		credentials := client.ObjectKey{Namespace: "liqo", Name: "milan-credentials"}
		before := uids(runningPods(ctx, milanC, *twin, app))
		Expect(before).NotTo(BeEmpty())
		node := &corev1.Node{}
		Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, node)).To(Succeed())

		// On milan: revoke the old token (its Secret goes) and let the
		// ResourceOffer controller issue a new one.
		old := &corev1.Secret{}
		Expect(milanC.Get(ctx, identity, old)).To(Succeed())
		tenant := string(old.Data[sharingv1alpha1.IdentityNamespaceKey])
		Expect(milanC.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: sharingv1alpha1.ConsumerTokenSecretName}})).To(Succeed())
		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(milanC.Get(ctx, identity, s)).To(Succeed())
			g.Expect(s.Data[sharingv1alpha1.IdentityTokenKey]).NotTo(BeEmpty())
			g.Expect(s.Data[sharingv1alpha1.IdentityTokenKey]).NotTo(Equal(old.Data[sharingv1alpha1.IdentityTokenKey]))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		cfg, err := clientcmd.RESTConfigFromKubeConfig(old.Data[sharingv1alpha1.IdentityKubeconfigKey])
		Expect(err).NotTo(HaveOccurred())
		oldClient, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() error {
			_, err := oldClient.CoreV1().ConfigMaps(tenant).Get(ctx, sharingv1alpha1.OfferConfigMapName, metav1.GetOptions{})
			return err
		}).WithContext(ctx).WithTimeout(30*time.Second).Should(MatchError(apierrors.IsUnauthorized, "IsUnauthorized"), "the old token is revoked")
		// The new identity crosses as any other: milan's PushSecret to the
		// store, rome's ExternalSecret from it, asked to sync now. Both are
		// asked again on every poll: an ExternalSecret that syncs before the
		// PushSecret has written every property reads the old token and would
		// otherwise wait a whole refresh interval.
		Eventually(func(g Gomega) {
			g.Expect(framework.SyncIdentities(ctx, milanC, romeC)).To(Succeed())
			s := &corev1.Secret{}
			g.Expect(romeC.Get(ctx, credentials, s)).To(Succeed())
			g.Expect(s.Data[sharingv1alpha1.IdentityTokenKey]).NotTo(Equal(old.Data[sharingv1alpha1.IdentityTokenKey]))
		}).WithContext(ctx).WithTimeout(60*time.Second).WithPolling(2*time.Second).Should(Succeed(), "rome's credentials carry the new token")

		// A new pod needs the pod handler's client; its logs, the relay's.
		tmpl := offloadedDeployment(ns, "rotated", 1).Spec.Template
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "after-rotation", Labels: tmpl.Labels}, Spec: tmpl.Spec}
		Expect(romeC.Create(ctx, pod)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(romeC.Delete(ctx, pod))).To(Succeed())
			Eventually(func(g Gomega) {
				g.Expect(apierrors.IsNotFound(milanC.Get(ctx, client.ObjectKey{Namespace: *twin, Name: pod.Name}, &corev1.Pod{}))).To(BeTrue())
			}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		})
		start := time.Now()
		Eventually(func(g Gomega) {
			g.Expect(runningPods(ctx, romeC, ns, "rotated")).To(HaveKey(pod.Name))
			g.Expect(runningPods(ctx, milanC, *twin, "rotated")).To(HaveKey(pod.Name))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("a pod created after the rotation was Running on milan in %s\n", time.Since(start).Round(100*time.Millisecond))
		Eventually(func(g Gomega) {
			out, err := kubectl(ctx, rome, "logs", "-n", ns, pod.Name)
			g.Expect(err).NotTo(HaveOccurred(), out)
			g.Expect(out).To(ContainSubstring(lab.KwokLogLine("milan")))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		Expect(uids(runningPods(ctx, milanC, *twin, app))).To(Equal(before), "no remote pod was recreated")
		Expect(framework.NodeReady(ctx, romeC, "liqo-milan")).To(Succeed())
		current := &corev1.Node{}
		Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, current)).To(Succeed())
		Expect(current.UID).To(Equal(node.UID), "the virtual node was not recreated")
	}, SpecTimeout(4*time.Minute))
}
