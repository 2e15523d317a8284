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
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

var _ = Describe("seed scenario: offloading with policies", func() {
	It("extends the namespace to naples only and runs every pod on liqo-naples", func(ctx context.Context) {
		const ns = "policies"
		offload(ctx, ns, offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, region("south"))
		Expect(naplesC.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{})).To(Succeed())
		Expect(apierrors.IsNotFound(florenceC.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}))).To(BeTrue(),
			"florence does not match the selector and gets no twin")

		Expect(veniceC.Create(ctx, deployment(ns, "web", 3, onVirtualNodes))).To(Succeed())
		Eventually(func(g Gomega) {
			pods := runningPods(ctx, g, veniceC, ns, "web")
			g.Expect(pods).To(HaveLen(3))
			for _, p := range pods {
				g.Expect(p.Spec.NodeName).To(Equal("liqo-naples"))
				g.Expect(p.Spec.Tolerations).To(ContainElement(HaveField("Key", offloadingv1alpha1.VirtualNodeTaintKey)), "added by the webhook")
			}
			g.Expect(runningPods(ctx, g, naplesC, ns, "web")).To(HaveLen(3))
		}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())

		// naples' scheduler reports where it put each pod; venice sees it on its own pods.
		Eventually(func(g Gomega) {
			events := &corev1.EventList{}
			g.Expect(veniceC.List(ctx, events, client.InNamespace(ns))).To(Succeed())
			reflected := 0
			for _, e := range events.Items {
				if e.ReportingController == "liqo.io/event-reflection" && e.ReportingInstance == "naples" && e.Reason == "Scheduled" {
					g.Expect(e.InvolvedObject.Namespace).To(Equal(ns))
					reflected++
				}
			}
			g.Expect(reflected).To(BeNumerically(">=", 3))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		// A repeated event on naples updates its copy: the reflector reads its
		// copies back through the manager's cache, which holds only them
		// (a field selector): a cache missing them would leave the count at 1.
		naplesPod := runningPods(ctx, Default, naplesC, ns, "web")[0]
		backoff := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: naplesPod.Name + ".e2e-backoff"},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: ns, Name: naplesPod.Name, UID: naplesPod.UID},
			Reason:         "BackOff", Message: "Back-off pulling image", Type: corev1.EventTypeWarning, Count: 1,
			FirstTimestamp: metav1.Now(), LastTimestamp: metav1.Now(), Source: corev1.EventSource{Component: "e2e"}}
		Expect(naplesC.Create(ctx, backoff)).To(Succeed())
		copyCount := func(g Gomega) int32 {
			c := &corev1.Event{}
			g.Expect(veniceC.Get(ctx, client.ObjectKeyFromObject(backoff), c)).To(Succeed())
			g.Expect(c.ReportingController).To(Equal("liqo.io/event-reflection"))
			return c.Count
		}
		Eventually(copyCount).WithContext(ctx).WithTimeout(30 * time.Second).Should(Equal(int32(1)))
		backoff.Count, backoff.LastTimestamp = 4, metav1.NewTime(time.Now().Add(2*time.Second))
		Expect(naplesC.Update(ctx, backoff)).To(Succeed())
		Eventually(copyCount).WithContext(ctx).WithTimeout(30 * time.Second).Should(Equal(int32(4)))

		// The pods' ServiceAccount token reaches naples, and venice's API server accepts it.
		token := &corev1.Secret{}
		Eventually(func() error {
			return naplesC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "liqo-sa-token-default"}, token)
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		cfg, err := venice.RESTConfig()
		Expect(err).NotTo(HaveOccurred())
		asPod := rest.AnonymousClientConfig(cfg)
		asPod.BearerToken = string(token.Data["token"])
		cs, err := kubernetes.NewForConfig(asPod)
		Expect(err).NotTo(HaveOccurred())
		review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(review.Status.UserInfo.Username).To(Equal("system:serviceaccount:" + ns + ":default"))
		// ...and naples' pods mount it in place of naples' own token.
		for _, p := range runningPods(ctx, Default, naplesC, ns, "web") {
			Expect(p.Spec.Volumes).To(ContainElement(HaveField("VolumeSource.Secret.SecretName", "liqo-sa-token-default")))
		}
	}, SpecTimeout(3*time.Minute))
})

var _ = Describe("seed scenario: replicated deployments", func() {
	It("spreads two replicas with maxSkew 1 over the two virtual nodes, one on each", func(ctx context.Context) {
		const ns = "replicated"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy, nil)
		spread := func(spec *corev1.PodSpec) {
			spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelHostname,
				WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: deployment(ns, "app", 1).Spec.Selector}}
		}
		Expect(veniceC.Create(ctx, deployment(ns, "app", 2, spread))).To(Succeed())
		Eventually(func(g Gomega) {
			nodes := map[string]int{}
			for _, p := range runningPods(ctx, g, veniceC, ns, "app") {
				nodes[p.Spec.NodeName]++
			}
			g.Expect(nodes).To(Equal(map[string]int{"liqo-florence": 1, "liqo-naples": 1}),
				"Remote keeps pods off venice's own nodes; the spread puts one on each peer")
			g.Expect(runningPods(ctx, g, florenceC, ns, "app")).To(HaveLen(1))
			g.Expect(runningPods(ctx, g, naplesC, ns, "app")).To(HaveLen(1))
		}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))
})
