//go:build e2e

package peering_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// The consumer-side Secret name the committed ExternalSecret targets, and the
// provider-side Secret the committed PushSecret reads.
var (
	credentials = secretKey("liqo", "milan-credentials")
	identity    = secretKey("liqo", sharingv1alpha1.IdentitySecretName("rome", ""))
)

func kubectl(c *lab.Cluster, args ...string) string {
	cmd := exec.Command(filepath.Join(theLab.Binaries().KubeDir, "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig()}, args...)...)
	out, err := cmd.CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), "kubectl %s: %s", strings.Join(args, " "), out)
	return string(out)
}

func kstatusOf(ctx context.Context, c client.Client, obj client.Object) status.Status {
	Expect(c.Get(ctx, client.ObjectKeyFromObject(obj), obj)).To(Succeed())
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	Expect(err).NotTo(HaveOccurred())
	res, err := status.Compute(&unstructured.Unstructured{Object: m})
	Expect(err).NotTo(HaveOccurred())
	return res.Status
}

func readyCondition(fc *discoveryv1alpha1.ForeignCluster) *metav1.Condition {
	for i := range fc.Status.Conditions {
		if fc.Status.Conditions[i].Type == "Ready" {
			return &fc.Status.Conditions[i]
		}
	}
	return nil
}

func fcNamed(name string) *discoveryv1alpha1.ForeignCluster {
	return &discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func nodeExists(ctx context.Context, name string) bool {
	err := romeC.Get(ctx, client.ObjectKey{Name: name}, &corev1.Node{})
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return true
}

var _ = Describe("peering from git", Ordered, func() {
	It("publishes milan's offer for rome, with a tenant namespace and identity", func(ctx context.Context) {
		Expect(framework.Apply(ctx, milan, only(milanConfig, "ResourceOffer"))).To(Succeed())
		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(milanC.Get(ctx, identity, s)).To(Succeed())
			g.Expect(s.Data).To(HaveKey(sharingv1alpha1.IdentityKubeconfigKey))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}, SpecTimeout(90*time.Second))

	It("judges a ForeignCluster InProgress until it is reconciled", func(ctx context.Context) {
		// rome's manager is not running yet: nothing has reconciled the object.
		Expect(rome.ExtraRunning(framework.ManagerProcess)).To(BeFalse())
		Expect(framework.Apply(ctx, rome, only(romeConfig, "ForeignCluster"))).To(Succeed())
		Expect(kstatusOf(ctx, romeC, fcNamed("milan"))).To(Equal(status.InProgressStatus))
	})

	It("reports a bad token as Ready=False without a virtual node or a crash", func(ctx context.Context) {
		bad := &corev1.Secret{}
		Expect(milanC.Get(ctx, identity, bad)).To(Succeed())
		bad.Data[sharingv1alpha1.IdentityKubeconfigKey] = []byte(strings.Replace(string(bad.Data[sharingv1alpha1.IdentityKubeconfigKey]),
			"token: ", "token: forged", 1))
		Expect(romeC.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: credentials.Namespace, Name: credentials.Name}, Data: bad.Data})).To(Succeed())
		Expect(framework.StartManager(ctx, rome, romeID)).To(Succeed())

		fc := fcNamed("milan")
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
			ready := readyCondition(fc)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(discoveryv1alpha1.AuthenticationFailedReason))
			g.Expect(ready.Message).To(ContainSubstring(credentials.String()))
			// Conditions and the rest of status are two patches: poll both.
			g.Expect(fc.PeeringStatus(discoveryv1alpha1.AuthenticationStatusCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusDenied))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(nodeExists(ctx, "liqo-milan")).To(BeFalse())
		Expect(rome.ExtraRunning(framework.ManagerProcess)).To(BeTrue())
	}, SpecTimeout(2*time.Minute))

	It("heals when the Secret is fixed: Established within 30s and liqo-milan Ready with the offer", func(ctx context.Context) {
		start := time.Now()
		// Stand-in for External Secrets: copy milan's identity Secret to rome.
		Expect(framework.CopySecret(ctx, milanC, identity, romeC, credentials)).To(Succeed())
		Eventually(func(g Gomega) {
			out := kubectl(rome, "get", "foreignclusters")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			g.Expect(strings.Fields(lines[0])).To(Equal([]string{"NAME", "TYPE", "OUTGOING", "PEERING", "INCOMING", "PEERING", "NETWORKING", "AUTHENTICATION", "AGE"}))
			var row []string
			for _, l := range lines[1:] {
				if f := strings.Fields(l); len(f) > 0 && f[0] == "milan" {
					row = f
				}
			}
			g.Expect(row).To(HaveLen(7))
			g.Expect(row[1]).To(Equal("OutOfBand"))
			g.Expect(row[2]).To(Equal("Established"), "OUTGOING PEERING")
			g.Expect(row[5]).To(Equal("Established"), "AUTHENTICATION")
		}).WithContext(ctx).WithTimeout(30 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		GinkgoWriter.Printf("peering established %s after the credentials arrived\n", time.Since(start).Round(100*time.Millisecond))

		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKeyFromObject(only(milanConfig, "ResourceOffer")[0]), offer)).To(Succeed())
		Eventually(func(g Gomega) {
			node := &corev1.Node{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, node)).To(Succeed())
			g.Expect(node.Labels).To(HaveKeyWithValue("liqo.io/type", "virtual-node"))
			g.Expect(node.Labels).To(HaveKeyWithValue("liqo.io/remote-cluster-id", milanID.ClusterID))
			for k, v := range offer.Spec.Labels {
				g.Expect(node.Labels).To(HaveKeyWithValue(k, v))
			}
			g.Expect(node.Spec.Taints).To(ContainElement(corev1.Taint{Key: "virtual-node.liqo.io/not-allowed", Value: "true", Effect: corev1.TaintEffectNoExecute}))
			g.Expect(readyStatus(node)).To(Equal(corev1.ConditionTrue))
			g.Expect(node.Status.Allocatable.Cpu().Cmp(*offer.Status.Offered.Cpu())).To(Equal(0))
			g.Expect(node.Status.Capacity.Memory().Cmp(*offer.Status.Offered.Memory())).To(Equal(0))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Expect(kubectl(rome, "get", "nodes", "-l", "liqo.io/type=virtual-node")).To(MatchRegexp(`liqo-milan\s+Ready\s+agent`))
		Expect(kstatusOf(ctx, romeC, fcNamed("milan"))).To(Equal(status.CurrentStatus))
		Expect(kstatusOf(ctx, milanC, offer)).To(Equal(status.CurrentStatus))
	}, SpecTimeout(2*time.Minute))

	It("names a clusterID mismatch and leaves other peerings alone", func(ctx context.Context) {
		Expect(framework.CopySecret(ctx, milanC, identity, romeC, secretKey("liqo", "lisbon-credentials"))).To(Succeed())
		wrong := &discoveryv1alpha1.ForeignCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "lisbon"},
			Spec: discoveryv1alpha1.ForeignClusterSpec{
				ClusterIdentity:        discoveryv1alpha1.ClusterIdentity{ClusterID: "lisbon-0000", ClusterName: "lisbon"},
				OutgoingPeeringEnabled: discoveryv1alpha1.PeeringEnabledYes,
				CredentialsSecretRef:   &discoveryv1alpha1.SecretReference{Name: "lisbon-credentials", Namespace: "liqo"},
			},
		}
		Expect(romeC.Create(ctx, wrong)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(wrong), wrong)).To(Succeed())
			ready := readyCondition(wrong)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Reason).To(Equal("ClusterIDMismatch"))
			g.Expect(ready.Message).To(And(ContainSubstring("lisbon-0000"), ContainSubstring(milanID.ClusterID)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(kstatusOf(ctx, romeC, wrong)).To(Equal(status.FailedStatus), "a mismatch only git can fix is Stalled")
		Expect(nodeExists(ctx, "liqo-lisbon")).To(BeFalse())
		milanFC := fcNamed("milan")
		Expect(romeC.Get(ctx, client.ObjectKeyFromObject(milanFC), milanFC)).To(Succeed())
		Expect(readyCondition(milanFC).Status).To(Equal(metav1.ConditionTrue))
		Expect(romeC.Delete(ctx, wrong)).To(Succeed())
	}, SpecTimeout(time.Minute))

	It("grows liqo-milan when milan gains nodes and shrinks it when milan's pods use capacity", func(ctx context.Context) {
		before := allocatableCPU(ctx)
		Expect(milan.AddNodes(ctx, 2, 2, map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110"}, nil)).To(Succeed())
		Eventually(func() int64 { return allocatableCPU(ctx) }).WithContext(ctx).WithTimeout(60*time.Second).
			Should(BeNumerically("==", before+2*8000*90/100), "90% of two more 8-cpu nodes")
		grown := allocatableCPU(ctx)

		cs, err := milan.Clientset()
		Expect(err).NotTo(HaveOccurred())
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "hungry", Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}}}}
		_, err = cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func() int64 { return allocatableCPU(ctx) }).WithContext(ctx).WithTimeout(60 * time.Second).
			Should(BeNumerically("==", grown-4000*90/100))
	}, SpecTimeout(3*time.Minute))

	It("reconnects after a credential rotation without recreating the virtual node", func(ctx context.Context) {
		node := &corev1.Node{}
		Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, node)).To(Succeed())
		uid := node.UID
		old := &corev1.Secret{}
		Expect(milanC.Get(ctx, identity, old)).To(Succeed())
		tenant := string(old.Data[sharingv1alpha1.IdentityNamespaceKey])
		// Rotate on the provider: a new ServiceAccount token, hence a new identity.
		Expect(milanC.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: sharingv1alpha1.ConsumerTokenSecretName}})).To(Succeed())
		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(milanC.Get(ctx, identity, s)).To(Succeed())
			g.Expect(s.Data[sharingv1alpha1.IdentityTokenKey]).NotTo(Equal(old.Data[sharingv1alpha1.IdentityTokenKey]))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		Expect(framework.CopySecret(ctx, milanC, identity, romeC, credentials)).To(Succeed())
		Eventually(func(g Gomega) {
			fc := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
			g.Expect(readyCondition(fc).Status).To(Equal(metav1.ConditionTrue))
			n := &corev1.Node{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, n)).To(Succeed())
			g.Expect(readyStatus(n)).To(Equal(corev1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			n := &corev1.Node{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, n)).To(Succeed())
			g.Expect(n.UID).To(Equal(uid))
		}).WithContext(ctx).WithTimeout(5 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("gives the consumer an identity that cannot read Secrets outside its tenant namespace", func(ctx context.Context) {
		s := &corev1.Secret{}
		Expect(romeC.Get(ctx, credentials, s)).To(Succeed())
		cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[sharingv1alpha1.IdentityKubeconfigKey])
		Expect(err).NotTo(HaveOccurred())
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		tenant := string(s.Data[sharingv1alpha1.IdentityNamespaceKey])
		_, err = cs.CoreV1().ConfigMaps(tenant).Get(ctx, sharingv1alpha1.OfferConfigMapName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred(), "the identity must read its own offer")
		for _, ns := range []string{"liqo", "kube-system", "default", ""} {
			_, err = cs.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
			Expect(apierrors.IsForbidden(err)).To(BeTrue(), "listing secrets in %q: %v", ns, err)
		}
		_, err = cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "listing nodes: %v", err)
	})

	It("turns liqo-milan NotReady while milan's API server is down and heals by itself", func(ctx context.Context) {
		Expect(milan.Stop(lab.APIServer)).To(Succeed())
		Eventually(func() corev1.ConditionStatus { return nodeReady(ctx) }).WithContext(ctx).WithTimeout(45 * time.Second).
			Should(Equal(corev1.ConditionFalse))
		Expect(nodeExists(ctx, "liqo-milan")).To(BeTrue(), "a broken peer never deletes the node")
		Expect(milan.Start(ctx, lab.APIServer)).To(Succeed())
		Eventually(func() corev1.ConditionStatus { return nodeReady(ctx) }).WithContext(ctx).WithTimeout(45 * time.Second).
			Should(Equal(corev1.ConditionTrue))
	}, SpecTimeout(2*time.Minute))

	It("unpeers when git disables outgoing peering: the node goes, milan keeps its side", func(ctx context.Context) {
		fc := only(romeConfig, "ForeignCluster")[0].DeepCopy()
		Expect(unstructured.SetNestedField(fc.Object, "No", "spec", "outgoingPeeringEnabled")).To(Succeed())
		Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{fc})).To(Succeed())
		Eventually(func() bool { return nodeExists(ctx, "liqo-milan") }).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeFalse())
		Eventually(func(g Gomega) {
			got := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(got), got)).To(Succeed())
			g.Expect(got.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusNone))
			g.Expect(readyCondition(got).Reason).To(Equal(discoveryv1alpha1.PeeringDisabledReason))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(milanC.Get(ctx, identity, &corev1.Secret{})).To(Succeed(), "the provider deletes nothing when a consumer unpeers")
	}, SpecTimeout(time.Minute))
})

func readyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}

func nodeReady(ctx context.Context) corev1.ConditionStatus {
	n := &corev1.Node{}
	if err := romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, n); err != nil {
		return corev1.ConditionUnknown
	}
	return readyStatus(n)
}

func allocatableCPU(ctx context.Context) int64 {
	n := &corev1.Node{}
	if err := romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, n); err != nil {
		return -1
	}
	return n.Status.Allocatable.Cpu().MilliValue()
}

var _ = fmt.Sprint
