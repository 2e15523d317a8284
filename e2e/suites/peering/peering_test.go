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

package peering_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/status"
	fluxmeta "github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
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

// eventuallyKstatus polls kstatus: conditions and observedGeneration may land
// in two status patches, so a verdict read once can be a moment early.
func eventuallyKstatus(ctx context.Context, c client.Client, obj client.Object) AsyncAssertion {
	return Eventually(func() status.Status { return kstatusOf(ctx, c, obj) }).WithContext(ctx).WithTimeout(15 * time.Second)
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
		Expect(framework.Apply(ctx, milan, append(only(milanConfig, "ResourceOffer"), only(milanConfig, "PushSecret")...))).To(Succeed())
		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(milanC.Get(ctx, identity, s)).To(Succeed())
			g.Expect(s.Data).To(HaveKey(sharingv1alpha1.IdentityKubeconfigKey))
			// milan's PushSecret hands it to the store, where rome's ExternalSecret will find it.
			stored := &corev1.Secret{}
			g.Expect(romeC.Get(ctx, secretKey(framework.StoreNamespace, manifests.IdentityKey("milan", "rome")), stored)).To(Succeed())
			g.Expect(stored.Data).To(Equal(s.Data))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}, SpecTimeout(90*time.Second))

	It("judges a ForeignCluster InProgress until it is reconciled", func(ctx context.Context) {
		// rome's manager is not running yet: nothing has reconciled the object.
		Expect(rome.ExtraRunning(framework.ManagerProcess)).To(BeFalse())
		Expect(framework.Apply(ctx, rome, only(romeConfig, "ForeignCluster"))).To(Succeed())
		Expect(kstatusOf(ctx, romeC, fcNamed("milan"))).To(Equal(status.InProgressStatus))
	})

	It("applies the user's seed resource-offer.yaml unchanged, InProgress until reconciled", func(ctx context.Context) {
		Expect(rome.ExtraRunning(framework.ManagerProcess)).To(BeFalse())
		objs, err := framework.Build(filepath.Join(repoRoot, "clusters/examples/homelab-offer"))
		Expect(err).NotTo(HaveOccurred())
		Expect(framework.Apply(ctx, rome, objs)).To(Succeed())
		Expect(kstatusOf(ctx, romeC, seedOffer())).To(Equal(status.InProgressStatus))
	})

	It("reports a bad token as Ready=False without a virtual node or a crash", func(ctx context.Context) {
		Expect(romeC.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: credentials.Namespace, Name: credentials.Name},
			Data: forgedCredentials(ctx)})).To(Succeed())
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
		// The forged Secret goes and rome's ExternalSecret fetches the real one from the store.
		Expect(romeC.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: credentials.Namespace, Name: credentials.Name}})).To(Succeed())
		start := time.Now()
		Expect(framework.Apply(ctx, rome, only(romeConfig, "ExternalSecret"))).To(Succeed())
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
		eventuallyKstatus(ctx, romeC, fcNamed("milan")).Should(Equal(status.CurrentStatus))
		eventuallyKstatus(ctx, milanC, offer).Should(Equal(status.CurrentStatus))

		By("kubectl get resourceoffers prints the offer as people read it")
		Eventually(func(g Gomega) {
			g.Expect(milanC.Get(ctx, client.ObjectKeyFromObject(offer), offer)).To(Succeed())
			out := kubectl(milan, "get", "resourceoffers", "-n", offer.Namespace, offer.Name)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			g.Expect(lines).To(HaveLen(2), out)
			g.Expect(strings.Fields(lines[0])).To(Equal([]string{"NAME", "CLUSTER", "ID", "CPU", "MEMORY", "READY", "AGE"}))
			row := strings.Fields(lines[1])
			g.Expect(row).To(HaveLen(6), out)
			g.Expect(row[2]).To(Equal(sharingv1alpha1.DisplayQuantity(corev1.ResourceCPU, *offer.Status.Offered.Cpu())), "CPU")
			g.Expect(row[3]).To(Equal(sharingv1alpha1.DisplayQuantity(corev1.ResourceMemory, *offer.Status.Offered.Memory())), "MEMORY")
			g.Expect(row[3]).To(MatchRegexp(`^\d+(\.\d)?(Ki|Mi|Gi|Ti|Pi)$`), "MEMORY in binary units, not raw bytes")
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	refusesUnsafeCredentials()

	It("names a clusterID mismatch and leaves other peerings alone", func(ctx context.Context) {
		// milan's identity for rome, fetched from the store into a second
		// Secret: the ExternalSecret `spillway peer` writes, without its ForeignCluster.
		lisbon := manifests.Peering{Consumer: "rome", Provider: "milan", CredentialsSecret: "lisbon-credentials"}
		files := slices.DeleteFunc(lisbon.Files(), func(f manifests.File) bool { return f.Name != manifests.ExternalSecretFile("milan") })
		Expect(files).To(HaveLen(1))
		Expect(framework.ApplyFiles(ctx, rome, files)).To(Succeed())
		Eventually(func() error { return romeC.Get(ctx, secretKey("liqo", "lisbon-credentials"), &corev1.Secret{}) }).
			WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
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
		eventuallyKstatus(ctx, romeC, wrong).Should(Equal(status.FailedStatus), "a mismatch only git can fix is Stalled")
		Expect(nodeExists(ctx, "liqo-lisbon")).To(BeFalse())
		milanFC := fcNamed("milan")
		Expect(romeC.Get(ctx, client.ObjectKeyFromObject(milanFC), milanFC)).To(Succeed())
		Expect(readyCondition(milanFC).Status).To(Equal(metav1.ConditionTrue))
		Expect(romeC.Delete(ctx, wrong)).To(Succeed())
	}, SpecTimeout(time.Minute))

	It("reconciles the seed's offer once the manager runs: Current, Ready, offered verbatim", func(ctx context.Context) {
		offer := seedOffer()
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(offer), offer)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(offer.Status.Conditions, "Ready")).To(BeTrue(), "%v", offer.Status.Conditions)
			gpu := offer.Status.Offered["nvidia.com/gpu"]
			g.Expect(gpu.Value()).To(Equal(int64(1)))
			g.Expect(offer.Status.Offered.Cpu().Cmp(resource.MustParse("4"))).To(Equal(0))
			g.Expect(offer.Status.Offered.Memory().Cmp(resource.MustParse("16Gi"))).To(Equal(0))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		eventuallyKstatus(ctx, romeC, offer).Should(Equal(status.CurrentStatus))
	}, SpecTimeout(time.Minute))

	It("honours reconcile.fluxcd.io/requestedAt on ForeignCluster and ResourceOffer", func(ctx context.Context) {
		token := fmt.Sprintf("audit-%d", time.Now().UnixNano())
		patch := client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, fluxmeta.ReconcileRequestAnnotation, token)))
		fc := fcNamed("milan")
		offer := only(milanConfig, "ResourceOffer")[0].DeepCopy()
		Expect(romeC.Patch(ctx, fc, patch)).To(Succeed())
		Expect(milanC.Patch(ctx, offer, patch)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
			g.Expect(fc.Status.LastHandledReconcileAt).To(Equal(token))
			ro := &sharingv1alpha1.ResourceOffer{}
			g.Expect(milanC.Get(ctx, client.ObjectKeyFromObject(offer), ro)).To(Succeed())
			g.Expect(ro.Status.LastHandledReconcileAt).To(Equal(token))
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
	}, SpecTimeout(time.Minute))

	It("writes only status and finalizers, under its own field manager", func(ctx context.Context) {
		fc := fcNamed("milan")
		Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKeyFromObject(only(milanConfig, "ResourceOffer")[0]), offer)).To(Succeed())
		for _, obj := range []client.Object{fc, offer} {
			var statusOwned bool
			for _, mf := range obj.GetManagedFields() {
				if mf.Manager != fluxstatus.FieldOwner {
					continue
				}
				var fields map[string]any
				Expect(json.Unmarshal(mf.FieldsV1.GetRawBytes(), &fields)).To(Succeed())
				if mf.Subresource == "status" {
					statusOwned = true
					continue
				}
				Expect(fields).NotTo(HaveKey("f:spec"), "%s wrote spec of %s", mf.Manager, obj.GetName())
				for k := range fields {
					Expect(k).To(Equal("f:metadata"), "%s owns %s of %s", mf.Manager, k, obj.GetName())
				}
				Expect(fields["f:metadata"]).To(HaveKey("f:finalizers"))
				Expect(fields["f:metadata"]).To(HaveLen(1), "%s owns metadata other than finalizers on %s", mf.Manager, obj.GetName())
			}
			Expect(statusOwned).To(BeTrue(), "status of %s not written by %s", obj.GetName(), fluxstatus.FieldOwner)
		}
	})

	It("reports a bad token on a second peering without touching milan's", func(ctx context.Context) {
		Expect(romeC.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "naples-credentials"},
			Data: forgedCredentials(ctx)})).To(Succeed())
		naples := &discoveryv1alpha1.ForeignCluster{
			ObjectMeta: metav1.ObjectMeta{Name: "naples"},
			Spec: discoveryv1alpha1.ForeignClusterSpec{
				ClusterIdentity:        discoveryv1alpha1.ClusterIdentity{ClusterID: "naples-0000", ClusterName: "naples"},
				OutgoingPeeringEnabled: discoveryv1alpha1.PeeringEnabledYes,
				CredentialsSecretRef:   &discoveryv1alpha1.SecretReference{Name: "naples-credentials", Namespace: "liqo"},
			},
		}
		Expect(romeC.Create(ctx, naples)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(naples), naples)).To(Succeed())
			ready := readyCondition(naples)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(discoveryv1alpha1.AuthenticationFailedReason))
			g.Expect(ready.Message).To(ContainSubstring("liqo/naples-credentials"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(nodeExists(ctx, "liqo-naples")).To(BeFalse())
		Expect(rome.ExtraRunning(framework.ManagerProcess)).To(BeTrue())
		milanFC := fcNamed("milan")
		Expect(romeC.Get(ctx, client.ObjectKeyFromObject(milanFC), milanFC)).To(Succeed())
		Expect(readyCondition(milanFC).Status).To(Equal(metav1.ConditionTrue))
		Expect(nodeReady(ctx)).To(Equal(corev1.ConditionTrue))
		Expect(romeC.Delete(ctx, naples)).To(Succeed())
	}, SpecTimeout(time.Minute))

	It("leaves a suspended ForeignCluster as it is and picks it up again on resume", func(ctx context.Context) {
		fc := only(romeConfig, "ForeignCluster")[0].DeepCopy()
		Expect(unstructured.SetNestedField(fc.Object, true, "spec", "suspend")).To(Succeed())
		Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{fc})).To(Succeed())
		// Pointing it at bad credentials would turn a reconciled peering
		// Ready=False. (External Secrets keeps milan-credentials itself true
		// to the store: it reverts any edit.)
		Expect(romeC.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "milan-forged"},
			Data: forgedCredentials(ctx)})).To(Succeed())
		Expect(unstructured.SetNestedField(fc.Object, "milan-forged", "spec", "credentialsSecretRef", "name")).To(Succeed())
		Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{fc})).To(Succeed())
		Consistently(func(g Gomega) {
			got := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(got), got)).To(Succeed())
			g.Expect(readyCondition(got).Status).To(Equal(metav1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(12*time.Second).WithPolling(time.Second).Should(Succeed(), "a suspended ForeignCluster was reconciled")

		Expect(unstructured.SetNestedField(fc.Object, false, "spec", "suspend")).To(Succeed())
		Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{fc})).To(Succeed())
		Eventually(func(g Gomega) {
			got := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(got), got)).To(Succeed())
			g.Expect(readyCondition(got).Reason).To(Equal(discoveryv1alpha1.AuthenticationFailedReason))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(nodeExists(ctx, "liqo-milan")).To(BeTrue(), "bad credentials never delete the node")

		// git's ForeignCluster again, reading the Secret External Secrets fills.
		Expect(framework.Apply(ctx, rome, only(romeConfig, "ForeignCluster"))).To(Succeed())
		Eventually(func(g Gomega) {
			got := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(got), got)).To(Succeed())
			g.Expect(readyCondition(got).Status).To(Equal(metav1.ConditionTrue))
			g.Expect(nodeReady(ctx)).To(Equal(corev1.ConditionTrue))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(romeC.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "milan-forged"}})).To(Succeed())
	}, SpecTimeout(2*time.Minute))

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
		// The rotated identity travels as any other: milan's PushSecret to the
		// store, rome's ExternalSecret from it. Their refresh intervals are
		// minutes; force-sync asks for it now, as `kubectl annotate` would.
		Expect(framework.ForceSync(ctx, milanC, only(milanConfig, "PushSecret")[0])).To(Succeed())
		Eventually(func(g Gomega) {
			s := &corev1.Secret{}
			g.Expect(romeC.Get(ctx, secretKey(framework.StoreNamespace, manifests.IdentityKey("milan", "rome")), s)).To(Succeed())
			g.Expect(s.Data[sharingv1alpha1.IdentityTokenKey]).NotTo(Equal(old.Data[sharingv1alpha1.IdentityTokenKey]))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(framework.ForceSync(ctx, romeC, only(romeConfig, "ExternalSecret")[0])).To(Succeed())
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

	It("serves metrics, and holds a leader lease when started with --leader-elect", func(ctx context.Context) {
		port, err := rome.ExtraPort(0) // framework.StartManager's metrics port
		Expect(err).NotTo(HaveOccurred())
		restarted := metav1.NowMicro()
		Expect(framework.StartManager(ctx, rome, romeID, "--leader-elect=true")).To(Succeed())
		Eventually(func(g Gomega) {
			lease := &coordinationv1.Lease{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "spillway-controller.liqo.io"}, lease)).To(Succeed())
			g.Expect(ptr.Deref(lease.Spec.HolderIdentity, "")).NotTo(BeEmpty())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
			g.Expect(err).NotTo(HaveOccurred())
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(body)).To(ContainSubstring(`controller_runtime_reconcile_total{controller="foreigncluster"`))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			fc := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(fc), fc)).To(Succeed())
			g.Expect(readyCondition(fc).Status).To(Equal(metav1.ConditionTrue))
			g.Expect(nodeReady(ctx)).To(Equal(corev1.ConditionTrue))
			// Status written before the restart would pass the checks above: the
			// node's lease renewed since proves the new manager runs the node.
			lease := &coordinationv1.Lease{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: "liqo-milan"}, lease)).To(Succeed())
			g.Expect(lease.Spec.RenewTime).NotTo(BeNil())
			g.Expect(lease.Spec.RenewTime.After(restarted.Time)).To(BeTrue(), "lease last renewed %s, manager restarted %s", lease.Spec.RenewTime, restarted)
		}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "the restarted manager keeps the peering")
		Eventually(func(g Gomega) {
			body := metricsOf(g, port)
			g.Expect(body).To(MatchRegexp(`(?m)^spillway_peering_sessions 1$`), "one running peering session, counted by the runtime")
			GinkgoWriter.Printf("rome's manager with 1 peering: %s\n", regexp.MustCompile(`(?m)^go_goroutines \S+$`).FindString(body))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))

	It("turns liqo-milan NotReady while milan's API server is down and heals by itself", func(ctx context.Context) {
		Expect(milan.Stop(lab.APIServer)).To(Succeed())
		Eventually(func() corev1.ConditionStatus { return nodeReady(ctx) }).WithContext(ctx).WithTimeout(45 * time.Second).
			Should(Equal(corev1.ConditionFalse))
		Expect(nodeExists(ctx, "liqo-milan")).To(BeTrue(), "a broken peer never deletes the node")
		Expect(milan.Start(ctx, lab.APIServer)).To(Succeed())
		Eventually(func() corev1.ConditionStatus { return nodeReady(ctx) }).WithContext(ctx).WithTimeout(45 * time.Second).
			Should(Equal(corev1.ConditionTrue))
	}, SpecTimeout(2*time.Minute))

	It("unpeers when git disables outgoing peering: cordon, evict, delete the node; milan keeps its side", func(ctx context.Context) {
		// A pod bound to liqo-milan. Its namespace is not offloaded, so it stays
		// Pending, and Kubernetes lets a Pending pod be evicted whatever its
		// PodDisruptionBudget says: the PDB case needs a Running offloaded pod.
		ns := "unpeer"
		Expect(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bound"},
			Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
				Tolerations: []corev1.Toleration{{Key: "virtual-node.liqo.io/not-allowed", Operator: corev1.TolerationOpExists}}}}
		Expect(romeC.Create(ctx, pod)).To(Succeed())

		fc := only(romeConfig, "ForeignCluster")[0].DeepCopy()
		Expect(unstructured.SetNestedField(fc.Object, "No", "spec", "outgoingPeeringEnabled")).To(Succeed())
		Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{fc})).To(Succeed())
		Eventually(func(g Gomega) {
			got := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(got), got)).To(Succeed())
			g.Expect(got.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusDisconnecting))
			g.Expect(readyCondition(got).Message).To(ContainSubstring("1 pod(s) still to evict"))
			n := &corev1.Node{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, n)).To(Succeed())
			g.Expect(n.Spec.Unschedulable).To(BeTrue(), "cordoned first")
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Eventually(func() error { return romeC.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{}) }).
			WithContext(ctx).WithTimeout(30*time.Second).Should(MatchError(apierrors.IsNotFound, "IsNotFound"), "the pod is evicted")
		Eventually(func() bool { return nodeExists(ctx, "liqo-milan") }).WithContext(ctx).WithTimeout(60 * time.Second).Should(BeFalse())
		Eventually(func(g Gomega) {
			got := fcNamed("milan")
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(got), got)).To(Succeed())
			g.Expect(got.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusNone))
			g.Expect(readyCondition(got).Reason).To(Equal(discoveryv1alpha1.PeeringDisabledReason))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Expect(milanC.Get(ctx, identity, &corev1.Secret{})).To(Succeed(), "the provider deletes nothing when a consumer unpeers")
	}, SpecTimeout(2*time.Minute))
})

// seedOffer is the ResourceOffer of clusters/examples/homelab-offer.
func seedOffer() *sharingv1alpha1.ResourceOffer {
	return &sharingv1alpha1.ResourceOffer{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-system", Name: "homelab-offer"}}
}

// forgedCredentials is milan's identity for rome with a token milan never issued.
func forgedCredentials(ctx context.Context) map[string][]byte {
	s := &corev1.Secret{}
	Expect(milanC.Get(ctx, identity, s)).To(Succeed())
	kubeconfig := string(s.Data[sharingv1alpha1.IdentityKubeconfigKey])
	Expect(kubeconfig).To(ContainSubstring("token: "))
	s.Data[sharingv1alpha1.IdentityKubeconfigKey] = []byte(strings.Replace(kubeconfig, "token: ", "token: forged", 1))
	return s.Data
}

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

func metricsOf(g Gomega, port int) string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	g.Expect(err).NotTo(HaveOccurred())
	return string(body)
}
