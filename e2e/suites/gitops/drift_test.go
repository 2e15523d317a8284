//go:build e2e

package gitops_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/ssa"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// The offloaded namespace of clusters/rome/config and its workload.
const (
	demoNamespace = "liqo-demo"
	nginxReplicas = 1
)

var _ = Describe("clusters/rome and clusters/milan applied as Flux applies them", Ordered, func() {
	var romeObjs, milanObjs []*unstructured.Unstructured

	BeforeAll(func() {
		romeObjs = layerObjects("rome", "config")
		milanObjs = layerObjects("milan", "config")
	})

	It("applies milan's offer; its identity for rome is carried across (the lab's stand-in for External Secrets)", func(ctx context.Context) {
		_, err := applyStaged(ctx, milan, milanObjs)
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.WaitForObjects(ctx, milan, milanObjs)).To(Succeed())
		identity := client.ObjectKey{Namespace: "liqo", Name: sharingv1alpha1.IdentitySecretName("rome", "")}
		Expect(framework.Poll(ctx, func(ctx context.Context) error {
			return framework.CopySecret(ctx, milanC, identity, romeC, client.ObjectKey{Namespace: "liqo", Name: "milan-credentials"})
		})).To(Succeed())
	}, SpecTimeout(3*time.Minute))

	It("applies rome's config in one batch, the Deployment before its NamespaceOffloading, and every object becomes Current", func(ctx context.Context) {
		cs, err := applyStaged(ctx, rome, romeObjs)
		Expect(err).NotTo(HaveOccurred())
		var subjects []string
		for _, e := range cs.Entries {
			subjects = append(subjects, e.Subject)
		}
		deployment := slices.IndexFunc(subjects, func(s string) bool { return strings.HasPrefix(s, "Deployment/") })
		offloading := slices.IndexFunc(subjects, func(s string) bool { return strings.HasPrefix(s, "NamespaceOffloading/") })
		Expect(deployment).To(BeNumerically(">=", 0), "applied: %v", subjects)
		Expect(deployment).To(BeNumerically("<", offloading), "ssa's order puts workloads before custom resources: %v", subjects)
		GinkgoWriter.Printf("applied in order: %v\n", subjects)
		Expect(framework.WaitForObjects(ctx, rome, romeObjs)).To(Succeed())
	}, SpecTimeout(4*time.Minute))

	It("runs nginx where liqo-demo's NamespaceOffloading says, on liqo-milan, backed by a pod in milan", func(ctx context.Context) {
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))

	It("leaves nothing for Flux to apply: the SSA dry-run of every layer changes nothing, also after a requested reconcile", func(ctx context.Context) {
		expectNoDrift(ctx, romeObjs, milanObjs)
		requestReconcile(ctx, rome, romeObjs)
		requestReconcile(ctx, milan, milanObjs)
		expectNoDrift(ctx, romeObjs, milanObjs)
	}, SpecTimeout(3*time.Minute))

	It("kubectl diff -k clusters/<name>/config exits 0 on both clusters", func(ctx context.Context) {
		for _, c := range []*lab.Cluster{rome, milan} {
			code, out := kubectlDiff(ctx, c)
			Expect(code).To(BeZero(), "kubectl diff -k clusters/%s/config:\n%s", c.Name, out)
		}
	}, SpecTimeout(2*time.Minute))

	It("sees a hand edit as drift, in the SSA dry-run and in kubectl diff, until Flux applies again", func(ctx context.Context) {
		nginx := &unstructured.Unstructured{}
		nginx.SetGroupVersionKind(appsv1.SchemeGroupVersion.WithKind("Deployment"))
		nginx.SetNamespace(demoNamespace)
		nginx.SetName("nginx")
		scale := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, nginxReplicas+1))
		Expect(romeC.Patch(ctx, nginx, client.RawPatch(types.MergePatchType, scale), client.FieldOwner("kubectl-edit"))).To(Succeed())
		Expect(drift(ctx, rome, romeObjs)).To(ConsistOf(HavePrefix("configured Deployment/liqo-demo/nginx")))
		code, out := kubectlDiff(ctx, rome)
		Expect(code).To(Equal(1), "kubectl diff exits 1 on a difference:\n%s", out)
		Expect(out).To(ContainSubstring(fmt.Sprintf("-  replicas: %d", nginxReplicas+1)))

		_, err := applyStaged(ctx, rome, romeObjs)
		Expect(err).NotTo(HaveOccurred())
		Expect(drift(ctx, rome, romeObjs)).To(BeEmpty())
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))

	It("converges again when rome's config is removed and applied in reverse order", func(ctx context.Context) {
		reversed := deepCopies(romeObjs)
		slices.Reverse(reversed)
		at := func(kind string) int {
			return slices.IndexFunc(reversed, func(o *unstructured.Unstructured) bool { return o.GetKind() == kind })
		}
		// The workload and the NamespaceOffloading come before their namespace
		// exists, the peering last: the pods and the offloading wait for the
		// virtual node.
		Expect(at("Deployment")).To(BeNumerically("<", at("Namespace")))
		Expect(at("NamespaceOffloading")).To(BeNumerically("<", at("Namespace")))
		Expect(at("Namespace")).To(BeNumerically("<", at("ForeignCluster")))

		removeConfig(ctx, romeObjs)
		order, err := applyInReverse(ctx, rome, romeObjs)
		Expect(err).NotTo(HaveOccurred())
		GinkgoWriter.Printf("applied in order: %v\n", order)
		Expect(framework.WaitForObjects(ctx, rome, romeObjs)).To(Succeed())
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		expectNoDrift(ctx, romeObjs, milanObjs)
		code, out := kubectlDiff(ctx, rome)
		Expect(code).To(BeZero(), "kubectl diff -k clusters/rome/config:\n%s", out)
	}, SpecTimeout(14*time.Minute))
})

// expectOffloaded checks rome's liqo-demo: nginx's pods run where the policy
// allows, on liqo-milan (nginx asks for a virtual node), and milan runs the
// same pods in the twin namespace the NamespaceOffloading reports.
func expectOffloaded(ctx context.Context, g Gomega) {
	pods := expectPodsWherePolicySays(ctx, g, romeC, demoNamespace, nginxReplicas)
	for _, p := range pods {
		g.Expect(p.Spec.NodeName).To(Equal("liqo-milan"), "pod %s", p.Name)
	}
	no := &offloadingv1alpha1.NamespaceOffloading{}
	g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: demoNamespace, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
	g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
	expectRunningIn(ctx, g, milan, milanC, no.Status.RemoteNamespaceName, names(pods))
}

// expectNoDrift runs the SSA dry-run of every layer on both clusters.
func expectNoDrift(ctx context.Context, romeConfig, milanConfig []*unstructured.Unstructured) {
	for _, c := range []struct {
		cluster *lab.Cluster
		config  []*unstructured.Unstructured
	}{{rome, romeConfig}, {milan, milanConfig}} {
		all := append(append(layerObjects(c.cluster.Name, "crds"), layerObjects(c.cluster.Name, "install")...), c.config...)
		Expect(drift(ctx, c.cluster, all)).To(BeEmpty(), "%s: what Flux would change", c.cluster.Name)
	}
}

// requestReconcile does what `flux reconcile` asks of Spillway's objects: it
// sets reconcile.fluxcd.io/requestedAt and waits until each controller has
// handled the request, so a drift check after it sees a full reconcile.
func requestReconcile(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) {
	cl, err := framework.Client(c)
	Expect(err).NotTo(HaveOccurred())
	at := fmt.Sprint(time.Now().UnixNano())
	var spillway []*unstructured.Unstructured
	for _, o := range objs {
		if strings.HasSuffix(o.GroupVersionKind().Group, "liqo.io") {
			spillway = append(spillway, o)
		}
	}
	Expect(spillway).NotTo(BeEmpty())
	patch := []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, meta.ReconcileRequestAnnotation, at))
	for _, o := range spillway {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		u.SetNamespace(o.GetNamespace())
		u.SetName(o.GetName())
		Expect(cl.Patch(ctx, u, client.RawPatch(types.MergePatchType, patch), client.FieldOwner("flux-cli"))).To(Succeed(), key(o))
		Eventually(func(g Gomega) {
			g.Expect(cl.Get(ctx, client.ObjectKeyFromObject(u), u)).To(Succeed())
			handled, _, _ := unstructured.NestedString(u.Object, "status", "lastHandledReconcileAt")
			g.Expect(handled).To(Equal(at), "%s: status.lastHandledReconcileAt", key(o))
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
	}
}

// removeConfig takes rome's config out the way a user unoffloads then
// unpeers: the workload and the NamespaceOffloading first, until milan has
// released the twin namespace; then the rest (ForeignCluster, namespace).
func removeConfig(ctx context.Context, objs []*unstructured.Unstructured) {
	rm := resourceManager(rome)
	no := &offloadingv1alpha1.NamespaceOffloading{}
	Expect(romeC.Get(ctx, client.ObjectKey{Namespace: demoNamespace, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
	twin := no.Status.RemoteNamespaceName
	Expect(twin).NotTo(BeEmpty())

	first := slices.DeleteFunc(deepCopies(objs), func(o *unstructured.Unstructured) bool {
		return o.GetKind() != "Deployment" && o.GetKind() != "NamespaceOffloading"
	})
	rest := slices.DeleteFunc(deepCopies(objs), func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "Deployment" || o.GetKind() == "NamespaceOffloading"
	})
	// Unoffloading waits for the offloaded pods to go, which waits for their
	// remote pods' grace period on milan (30 s for nginx).
	wait := ssa.WaitOptions{Interval: 500 * time.Millisecond, Timeout: 4 * time.Minute}
	for _, batch := range [][]*unstructured.Unstructured{first, rest} {
		start := time.Now()
		_, err := rm.DeleteAll(ctx, batch, ssa.DefaultDeleteOptions())
		Expect(err).NotTo(HaveOccurred())
		Expect(rm.WaitForTermination(batch, wait)).To(Succeed(), "still there:\n%s", liveState(ctx, batch))
		GinkgoWriter.Printf("deleted %d objects in %s\n", len(batch), time.Since(start).Round(100*time.Millisecond))
		Eventually(func(g Gomega) {
			err := milanC.Get(ctx, client.ObjectKey{Name: twin}, &corev1.Namespace{})
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "milan's twin namespace %s: %v", twin, err)
		}).WithContext(ctx).WithTimeout(2 * time.Minute).Should(Succeed())
	}
	Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{})).To(Satisfy(apierrors.IsNotFound), "unpeered: no virtual node")
}

// liveState prints what is left of objects, for a failure message.
func liveState(ctx context.Context, objs []*unstructured.Unstructured) string {
	var b strings.Builder
	for _, o := range objs {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(o.GroupVersionKind())
		if err := romeC.Get(ctx, client.ObjectKeyFromObject(o), u); err != nil {
			fmt.Fprintf(&b, "%s: %v\n", key(o), err)
			continue
		}
		status, _, _ := unstructured.NestedFieldNoCopy(u.Object, "status")
		fmt.Fprintf(&b, "%s: finalizers %v, status %v\n", key(o), u.GetFinalizers(), status)
	}
	pods := &corev1.PodList{}
	if err := romeC.List(ctx, pods, client.InNamespace(demoNamespace)); err == nil {
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "pod %s on %s: %s, deletionTimestamp %v\n", p.Name, p.Spec.NodeName, p.Status.Phase, p.DeletionTimestamp)
		}
	}
	return b.String()
}
