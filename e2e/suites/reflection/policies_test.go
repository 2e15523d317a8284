//go:build e2e

package reflection_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
