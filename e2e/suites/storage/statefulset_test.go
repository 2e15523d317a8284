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
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/policies"
)

// offeredClass is the class milan's ResourceOffer names for rome's claims: a
// second class of milan's local-path provisioner, so a twin of this class
// (not milan's default) proves the offer's field is what chose it.
const offeredClass = "milan-offered"

// The seed's stateful application: a StatefulSet of two replicas, spread by
// a hard anti-affinity over rome's one worker and the virtual node, each
// with a claim of the virtual class liqo.
var _ = Describe("the liqo virtual storage class", Ordered, func() {
	// liqo-demo as the fleet offloads it (clusters/rome/config), so that
	// spillway plan can be asked about unoffloading it.
	const ns = "liqo-demo"
	var remoteNS string           // its twin on milan
	placed := map[string]string{} // pod name → node, as first scheduled

	BeforeAll(func(ctx context.Context) {
		Expect(milanC.Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: offeredClass},
			Provisioner: framework.LocalPathProvisioner, VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
			ReclaimPolicy: ptr.To(corev1.PersistentVolumeReclaimDelete), AllowVolumeExpansion: ptr.To(true)})).To(Succeed())
		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
		Expect(milanC.Patch(ctx, offer, client.RawPatch(types.MergePatchType,
			[]byte(fmt.Sprintf(`{"spec":{"storageClassName":%q}}`, offeredClass))))).To(Succeed())
		Eventually(func(g Gomega) {
			cm := &corev1.ConfigMap{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: offer.Status.TenantNamespace, Name: sharingv1alpha1.OfferConfigMapName}, cm)).To(Succeed())
			g.Expect(cm.Data).To(HaveKeyWithValue(sharingv1alpha1.OfferStorageClassKey, offeredClass))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		objs, err := framework.Build(filepath.Join(repoRoot, "clusters/rome/config"))
		Expect(err).NotTo(HaveOccurred())
		var offloading []*unstructured.Unstructured
		for _, o := range objs {
			if o.GetKind() == "NamespaceOffloading" || (o.GetKind() == "Namespace" && o.GetName() == ns) {
				offloading = append(offloading, o)
			}
		}
		Expect(offloading).To(HaveLen(2))
		Expect(framework.Apply(ctx, rome, offloading)).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(romeC.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
		})
		Eventually(func(g Gomega) {
			no := &offloadingv1alpha1.NamespaceOffloading{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "offloading"}, no)).To(Succeed())
			g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
			remoteNS = no.Status.RemoteNamespaceName
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	})

	It("binds one replica's claim on rome and the other's on milan, with the provider's class", func(ctx context.Context) {
		start := time.Now()
		Expect(romeC.Create(ctx, statefulSet(ns, "db", 2))).To(Succeed())
		for _, name := range []string{"db-0", "db-1"} {
			placed[name] = scheduledNode(ctx, ns, name, "")
		}
		Expect(placed).To(ConsistOf("rome-worker-0", "liqo-milan"), "the anti-affinity spreads the replicas over rome's worker and the virtual node")
		for pod, node := range placed {
			pvc := "data-" + pod
			pv := boundVolume(ctx, romeC, ns, pvc)
			GinkgoWriter.Printf("virtual claim %s (pod on %s) Bound %s after the StatefulSet was created\n", pvc, node, time.Since(start).Round(time.Millisecond))
			Expect(pv.Spec.StorageClassName).To(Equal(sharingv1alpha1.VirtualStorageClassName))
			Expect(pv.Annotations).To(HaveKeyWithValue(policies.ProvisionedByAnnotation, sharingv1alpha1.VirtualStorageProvisioner))
			Expect(hostnameAffinity(pv)).To(Equal([]string{node}), "the virtual volume is held to the node of its data")
			if node == "liqo-milan" {
				expectRemoteTwin(ctx, remoteNS, pvc, pv, start)
			} else {
				expectLocalTwin(ctx, pv, node)
			}
		}
	})

	It("brings a deleted replica back on the cluster of its data, against the scheduler's preference", func(ctx context.Context) {
		Expect(placed).To(HaveLen(2), "the binding spec ran")
		By("scaling to 0, then preferring for every pod the node db-0 was not on")
		scale(ctx, ns, "db", 0)
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(romeC.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		other := "rome-worker-0"
		if placed["db-0"] == other {
			other = "liqo-milan"
		}
		prefer := fmt.Sprintf(`{"spec":{"template":{"spec":{"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":`+
			`[{"weight":100,"preference":{"matchExpressions":[{"key":%q,"operator":"In","values":[%q]}]}}]}}}}}}`, corev1.LabelHostname, other)
		Expect(romeC.Patch(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}},
			client.RawPatch(types.MergePatchType, []byte(prefer)))).To(Succeed())
		By("one replica at a time: no anti-affinity decides for it")
		for i, pod := range []string{"db-0", "db-1"} {
			start := time.Now()
			scale(ctx, ns, "db", int32(i+1))
			Expect(scheduledNode(ctx, ns, pod, "")).To(Equal(placed[pod]), "pod %s follows its data, not the preference for %s", pod, other)
			GinkgoWriter.Printf("data gravity: %s back on %s %s after the scale-up (preferred: %s)\n", pod, placed[pod], time.Since(start).Round(time.Millisecond), other)
		}
	})

	It("passes a grown claim to its twin, or says why the twin's class cannot grow", func(ctx context.Context) {
		Expect(placed).To(HaveLen(2), "the binding spec ran")
		for pod, node := range placed {
			pvc := &corev1.PersistentVolumeClaim{}
			Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-" + pod}, pvc)).To(Succeed())
			Expect(romeC.Patch(ctx, pvc, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`)))).To(Succeed())
			if node == "liqo-milan" {
				// milan's offered class allows expansion (local-path itself
				// never resizes, so the twin's capacity stays as it is).
				Eventually(func(g Gomega) {
					twin := &corev1.PersistentVolumeClaim{}
					g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: remoteNS, Name: pvc.Name}, twin)).To(Succeed())
					g.Expect(twin.Spec.Resources.Requests.Storage().String()).To(Equal("2Gi"))
				}).WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(), "the remote twin asks for the new size")
				continue
			}
			// rome's local-path class does not allow expansion: the claim says so.
			Eventually(func(g Gomega) {
				evs := &eventsv1.EventList{}
				g.Expect(romeC.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
				var notes []string
				for _, e := range evs.Items {
					if e.Regarding.Name == pvc.Name && e.Reason == "ResizeFailed" {
						notes = append(notes, e.Note)
					}
				}
				g.Expect(notes).To(ContainElement(ContainSubstring("its class must allow volume expansion")))
			}).WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(), "a ResizeFailed event on %s", pvc.Name)
		}
	})

	It("is what spillway plan refuses to strand by unoffloading the namespace", func(ctx context.Context) {
		Expect(placed).To(HaveLen(2), "the binding spec ran")
		out, code := planUnoffload(ctx)
		GinkgoWriter.Printf("spillway plan, unoffloading %s with a claim on milan (exit %d):\n%s\n", ns, code, out)
		Expect(code).To(Equal(1), "a rejected change exits 1")
		Expect(out).To(ContainSubstring("claim " + remoteClaimName(placed) + " keeps its data on milan"))
	})

	It("deletes the twins and the real volumes with the claims, leaving no orphan", func(ctx context.Context) {
		twins := &corev1.PersistentVolumeClaimList{}
		Expect(romeC.List(ctx, twins, client.InNamespace(sharingv1alpha1.DefaultStorageNamespace))).To(Succeed())
		Expect(twins.Items).To(HaveLen(1))
		localReal := twins.Items[0].Spec.VolumeName
		remoteTwin := &corev1.PersistentVolumeClaim{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: remoteNS, Name: remoteClaimName(placed)}, remoteTwin)).To(Succeed())
		remoteReal := remoteTwin.Spec.VolumeName
		Expect(romeC.Delete(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}})).To(Succeed())
		Eventually(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(romeC.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		start := time.Now()
		for pod := range placed {
			Expect(romeC.Delete(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data-" + pod}})).To(Succeed())
		}
		Eventually(func(g Gomega) {
			g.Expect(romeC.List(ctx, twins, client.InNamespace(sharingv1alpha1.DefaultStorageNamespace))).To(Succeed())
			g.Expect(twins.Items).To(BeEmpty(), "local twin claim")
			g.Expect(gone(ctx, romeC, &corev1.PersistentVolume{}, localReal)).To(BeTrue(), "rome's real volume %s", localReal)
			g.Expect(gone(ctx, milanC, &corev1.PersistentVolumeClaim{}, remoteNS+"/"+remoteTwin.Name)).To(BeTrue(), "milan's twin claim")
			g.Expect(gone(ctx, milanC, &corev1.PersistentVolume{}, remoteReal)).To(BeTrue(), "milan's real volume %s", remoteReal)
			pvs := &corev1.PersistentVolumeList{}
			g.Expect(romeC.List(ctx, pvs)).To(Succeed())
			for _, pv := range pvs.Items {
				g.Expect(pv.Spec.StorageClassName).NotTo(Equal(sharingv1alpha1.VirtualStorageClassName), "virtual volume %s left", pv.Name)
			}
		}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())
		GinkgoWriter.Printf("reclaim: twins and real volumes on both clusters gone %s after the claims were deleted\n", time.Since(start).Round(time.Millisecond))

		By("with no claim left on milan, the same unoffload is planned without refusal")
		out, code := planUnoffload(ctx)
		Expect(code).To(Equal(0), out)
		Expect(out).NotTo(ContainSubstring("keeps its data"))
	})
})

// planUnoffload runs spillway plan against rome, the head being the fleet
// without liqo-demo, and returns its output and exit code.
func planUnoffload(ctx context.Context) (string, int) {
	bin, err := framework.Binaries()
	Expect(err).NotTo(HaveOccurred())
	head := fleettest.Copy(GinkgoTB(), filepath.Join(repoRoot, "clusters"))
	fleettest.Write(GinkgoTB(), head, "rome/config/kustomization.yaml", `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- foreigncluster-milan.yaml
- externalsecret-milan.yaml
`)
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "spillway"), "plan", "--base", filepath.Join(repoRoot, "clusters"), "--head", head,
		"--kubeconfig", rome.Kubeconfig())
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	Expect(err).NotTo(HaveOccurred(), string(out))
	return string(out), 0
}

// expectLocalTwin checks the twin claim in liqo-storage and the real volume
// behind a locally bound virtual volume.
func expectLocalTwin(ctx context.Context, pv *corev1.PersistentVolume, node string) {
	ref, err := policies.ParseTwinClaim(pv.Annotations[sharingv1alpha1.TwinClaimAnnotation])
	Expect(err).NotTo(HaveOccurred())
	Expect(ref.Remote()).To(BeFalse())
	Expect(ref.Namespace).To(Equal(sharingv1alpha1.DefaultStorageNamespace))
	real := boundVolume(ctx, romeC, ref.Namespace, ref.Name)
	Expect(real.Spec.StorageClassName).To(Equal(framework.LocalPathClass), "the twin has the cluster's default class (no --storage-class)")
	Expect(real.Annotations).To(HaveKeyWithValue(policies.ProvisionedByAnnotation, framework.LocalPathProvisioner))
	Expect(hostnameAffinity(real)).To(Equal([]string{node}), "local-path made the volume on the pod's node")
	Expect(pv.Spec.HostPath).To(Equal(real.Spec.HostPath), "the virtual volume mirrors the real one")
}

// expectRemoteTwin checks the twin claim on milan: of the offered class, and
// Bound once the offloaded pod is scheduled there.
func expectRemoteTwin(ctx context.Context, ns, name string, pv *corev1.PersistentVolume, start time.Time) {
	realPV := boundVolume(ctx, milanC, ns, name)
	GinkgoWriter.Printf("remote twin %s/%s Bound on milan %s after the StatefulSet was created\n", ns, name, time.Since(start).Round(time.Millisecond))
	claim := &corev1.PersistentVolumeClaim{}
	Expect(milanC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, claim)).To(Succeed())
	Expect(claim.Spec.StorageClassName).To(HaveValue(Equal(offeredClass)), "the class milan's ResourceOffer names")
	Expect(realPV.Annotations).To(HaveKeyWithValue(policies.ProvisionedByAnnotation, framework.LocalPathProvisioner))
	Eventually(func(g Gomega) {
		g.Expect(romeC.Get(ctx, client.ObjectKey{Name: pv.Name}, pv)).To(Succeed())
		g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemotePhaseAnnotation, string(corev1.ClaimBound)))
		g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemoteVolumeAnnotation, realPV.Name))
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// scheduledNode waits for a pod (a new one, when previous is its old UID) to
// have a node and returns it.
func scheduledNode(ctx context.Context, ns, name string, previous types.UID) string {
	pod := &corev1.Pod{}
	Eventually(func(g Gomega) {
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod)).To(Succeed())
		g.Expect(pod.UID).NotTo(Equal(previous))
		g.Expect(pod.Spec.NodeName).NotTo(BeEmpty())
	}).WithContext(ctx).WithTimeout(90*time.Second).WithPolling(250*time.Millisecond).Should(Succeed(), "pod %s/%s scheduled", ns, name)
	return pod.Spec.NodeName
}

// scale sets the StatefulSet's replicas.
func scale(ctx context.Context, ns, name string, replicas int32) {
	sts := &appsv1.StatefulSet{}
	Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, sts)).To(Succeed())
	Expect(romeC.Patch(ctx, sts, client.RawPatch(types.MergePatchType, []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))))).To(Succeed())
}

func remoteClaimName(placed map[string]string) string {
	for pod, node := range placed {
		if node == "liqo-milan" {
			return "data-" + pod
		}
	}
	return ""
}

// gone reports whether the object (name, or namespace/name) no longer exists.
func gone(ctx context.Context, c client.Client, obj client.Object, key string) bool {
	k := client.ObjectKey{Name: key}
	for i := range key {
		if key[i] == '/' {
			k = client.ObjectKey{Namespace: key[:i], Name: key[i+1:]}
			break
		}
	}
	return apierrors.IsNotFound(c.Get(ctx, k, obj))
}

// statefulSet is the seed's replicated database, reduced to its objects: a
// hard anti-affinity between replicas and a claim template of the class liqo.
func statefulSet(ns, name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas), ServiceName: name, PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To[int64](0),
					Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
						RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
							LabelSelector: &metav1.LabelSelector{MatchLabels: labels}, TopologyKey: corev1.LabelHostname}}}},
					Containers: []corev1.Container{{Name: "db", Image: "mariadb",
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/mysql"}}}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{*claim("", "data", ptr.To(sharingv1alpha1.VirtualStorageClassName))},
		},
	}
}
