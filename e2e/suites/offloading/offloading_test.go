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

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

func offload(ctx context.Context, ns string, strategy offloadingv1alpha1.NamespaceMappingStrategy, selector *corev1.NodeSelector) {
	Expect(client.IgnoreAlreadyExists(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
	Expect(romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: ns},
		Spec:       offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: strategy, ClusterSelector: selector},
	})).To(Succeed())
}

func offloadingOf(ctx context.Context, g Gomega, ns string) *offloadingv1alpha1.NamespaceOffloading {
	no := &offloadingv1alpha1.NamespaceOffloading{}
	g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "offloading"}, no)).To(Succeed())
	return no
}

// offloadedDeployment carries what the webhook will add: the toleration and
// the affinity to virtual nodes.
func offloadedDeployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					// kwok removes a deleted pod at its deletionTimestamp, as a kubelet
					// honouring the grace period would; keep it short for the test.
					TerminationGracePeriodSeconds: ptr.To(int64(2)),
					Containers:                    []corev1.Container{{Name: "web", Image: "nginx"}},
					Tolerations:                   []corev1.Toleration{policies.VirtualNodeToleration()},
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
							{Key: "liqo.io/type", Operator: corev1.NodeSelectorOpIn, Values: []string{"virtual-node"}}}}}}}},
				},
			},
		},
	}
}

func runningPods(ctx context.Context, c client.Client, ns, app string) map[string]corev1.Pod {
	list := &corev1.PodList{}
	Expect(c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{"app": app})).To(Succeed())
	out := map[string]corev1.Pod{}
	for _, p := range list.Items {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp.IsZero() {
			out[p.Name] = p
		}
	}
	return out
}

var _ = Describe("namespace offloading", func() {
	It("names the twin <ns>-<cluster>-<suffix> with DefaultName and creates it only on milan", func(ctx context.Context) {
		offload(ctx, "default-name", offloadingv1alpha1.DefaultNameMappingStrategy, nil)
		want := "default-name-rome-" + policies.ClusterSuffix(romeID.ClusterID)
		Eventually(func(g Gomega) {
			no := offloadingOf(ctx, g, "default-name")
			g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
			g.Expect(no.Status.RemoteNamespaceName).To(Equal(want))
			g.Expect(milanC.Get(ctx, client.ObjectKey{Name: want}, &corev1.Namespace{})).To(Succeed())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		ns := &corev1.Namespace{}
		Expect(romeC.Get(ctx, client.ObjectKey{Name: "default-name"}, ns)).To(Succeed())
		Expect(ns.Labels).To(HaveKeyWithValue("liqo.io/scheduling-enabled", "true"))
	}, SpecTimeout(time.Minute))

	It("keeps the name with EnforceSameName", func(ctx context.Context) {
		offload(ctx, "same-name", offloadingv1alpha1.EnforceSameNameMappingStrategy, nil)
		Eventually(func(g Gomega) {
			no := offloadingOf(ctx, g, "same-name")
			g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
			g.Expect(milanC.Get(ctx, client.ObjectKey{Name: "same-name"}, &corev1.Namespace{})).To(Succeed())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))

	It("reports NoClusterSelected, Stalled for Flux, and creates nothing when the selector matches no peer", func(ctx context.Context) {
		mars := &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.liqo.io/region", Operator: corev1.NodeSelectorOpIn, Values: []string{"mars"}}}}}}
		offload(ctx, "nowhere", offloadingv1alpha1.EnforceSameNameMappingStrategy, mars)
		Eventually(func(g Gomega) {
			no := offloadingOf(ctx, g, "nowhere")
			g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.NoClusterSelectedOffloadingPhase))
			// milan is peered and does not match: nothing will change
			// without a change, so a Flux health check fails fast.
			g.Expect(no.Status.ObservedGeneration).To(Equal(no.Generation))
			g.Expect(conditions.IsStalled(no)).To(BeTrue())
			g.Expect(conditions.GetMessage(no, meta.StalledCondition)).To(ContainSubstring("peers: milan"))
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(no)
			g.Expect(err).NotTo(HaveOccurred())
			res, err := kstatus.Compute(&unstructured.Unstructured{Object: m})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(res.Status).To(Equal(kstatus.FailedStatus))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(apierrors.IsNotFound(milanC.Get(ctx, client.ObjectKey{Name: "nowhere"}, &corev1.Namespace{}))).To(BeTrue())

		By("a selector fixed in git un-stalls it")
		no := offloadingOf(ctx, Default, "nowhere")
		base := no.DeepCopy()
		no.Spec.ClusterSelector = nil
		Expect(romeC.Patch(ctx, no, client.MergeFrom(base))).To(Succeed())
		Eventually(func(g Gomega) {
			no := offloadingOf(ctx, g, "nowhere")
			g.Expect(conditions.IsReady(no)).To(BeTrue())
			g.Expect(conditions.Has(no, meta.StalledCondition)).To(BeFalse())
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))
})

var _ = Describe("pod offloading", Ordered, func() {
	const ns, app = "liqo-demo", "web"
	var twin string
	var remoteUIDs map[string]types.UID

	BeforeAll(func(ctx context.Context) {
		offload(ctx, ns, offloadingv1alpha1.DefaultNameMappingStrategy, nil)
		Eventually(func(g Gomega) {
			no := offloadingOf(ctx, g, ns)
			g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
			twin = no.Status.RemoteNamespaceName
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	})

	It("runs a 10-replica Deployment on milan's kwok nodes, Running on liqo-milan in rome", func(ctx context.Context) {
		start := time.Now()
		Expect(romeC.Create(ctx, offloadedDeployment(ns, app, 10))).To(Succeed())
		Eventually(func(g Gomega) {
			local := runningPods(ctx, romeC, ns, app)
			g.Expect(local).To(HaveLen(10))
			for _, p := range local {
				g.Expect(p.Spec.NodeName).To(Equal("liqo-milan"))
			}
			remote := runningPods(ctx, milanC, twin, app)
			g.Expect(remote).To(HaveLen(10))
			for name, p := range remote {
				g.Expect(local).To(HaveKey(name))
				g.Expect(p.Spec.NodeName).To(HavePrefix("milan-worker-"))
			}
		}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("10 offloaded pods Running in %s\n", time.Since(start).Round(100*time.Millisecond))
		remoteUIDs = uids(runningPods(ctx, milanC, twin, app))
	}, SpecTimeout(2*time.Minute))

	fieldTrackingSpec(&twin)
	statusWriteSpec(&twin)
	providerDefaultsSpec(ns, app, &twin)
	kubeletAPISpecs(ns, app, &twin)
	rotationSpec(ns, app, &twin)

	It("keeps the same remote pods across a virtual-kubelet restart", func(ctx context.Context) {
		Expect(framework.StartManager(ctx, rome, romeID)).To(Succeed(), "restarting rome's manager restarts its virtual kubelets")
		Eventually(func(g Gomega) { g.Expect(framework.NodeReady(ctx, romeC, "liqo-milan")).To(Succeed()) }).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(uids(runningPods(ctx, milanC, twin, app))).To(Equal(remoteUIDs))
		}).WithContext(ctx).WithTimeout(15 * time.Second).WithPolling(time.Second).Should(Succeed())
		Eventually(func(g Gomega) { g.Expect(runningPods(ctx, romeC, ns, app)).To(HaveLen(10)) }).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	restartCountSpec(ns, app, &twin)

	It("removes the remote pods when the Deployment is scaled down", func(ctx context.Context) {
		d := &appsv1.Deployment{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: app}, d)).To(Succeed())
		base := d.DeepCopy()
		d.Spec.Replicas = ptr.To(int32(3))
		// A patch, not an update: the Deployment controller keeps writing status.
		Expect(romeC.Patch(ctx, d, client.MergeFrom(base))).To(Succeed())
		Eventually(func(g Gomega) {
			all := &corev1.PodList{}
			g.Expect(milanC.List(ctx, all, client.InNamespace(twin))).To(Succeed())
			g.Expect(all.Items).To(HaveLen(3))
			g.Expect(runningPods(ctx, romeC, ns, app)).To(HaveLen(3))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		remoteUIDs = uids(runningPods(ctx, milanC, twin, app))
	}, SpecTimeout(2*time.Minute))
	It("keeps milan's pods Running while rome's API server is down, and stays consistent after", func(ctx context.Context) {
		Expect(rome.Stop(lab.APIServer)).To(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(uids(runningPods(ctx, milanC, twin, app))).To(Equal(remoteUIDs))
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(2 * time.Second).Should(Succeed())
		Expect(rome.Start(ctx, lab.APIServer)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(runningPods(ctx, romeC, ns, app)).To(HaveLen(3))
			all := &corev1.PodList{}
			g.Expect(milanC.List(ctx, all, client.InNamespace(twin))).To(Succeed())
			g.Expect(all.Items).To(HaveLen(3), "no duplicates on milan")
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		Expect(uids(runningPods(ctx, milanC, twin, app))).To(Equal(remoteUIDs))

		// The manager is back at work, not only its pods: a namespace offloaded
		// after the outage is extended. Its watches reconnect with client-go's
		// back-off (up to 30 s), which every later spec would otherwise inherit.
		back := time.Now()
		offload(ctx, "after-outage", offloadingv1alpha1.EnforceSameNameMappingStrategy, nil)
		Eventually(func(g Gomega) {
			g.Expect(offloadingOf(ctx, g, "after-outage").Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("a namespace offloaded after the outage was Ready %s later\n", time.Since(back).Round(100*time.Millisecond))
	}, SpecTimeout(5*time.Minute))

})

func uids(pods map[string]corev1.Pod) map[string]types.UID {
	out := map[string]types.UID{}
	for n, p := range pods {
		out[n] = p.UID
	}
	return out
}
