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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/policies"
)

// externalClass is a class of milan's that rome does not have, listed in
// milan's offer as one rome may claim directly.
const externalClass = "remote-disk"

// Externally managed storage: a claim of a class rome lacks, in an offloaded
// namespace, lives on the one peer whose offer lists the class.
var _ = Describe("externally managed storage", Ordered, func() {
	const ns = "storage-external"
	var remoteNS string // its twin on milan

	BeforeAll(func(ctx context.Context) {
		Expect(milanC.Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: externalClass},
			Provisioner: framework.LocalPathProvisioner, VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
			ReclaimPolicy: ptr.To(corev1.PersistentVolumeReclaimDelete)})).To(Succeed())
		Expect(romeC.Get(ctx, client.ObjectKey{Name: externalClass}, &storagev1.StorageClass{})).NotTo(Succeed(), "rome has no such class")
		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
		Expect(milanC.Patch(ctx, offer, client.RawPatch(types.MergePatchType,
			[]byte(fmt.Sprintf(`{"spec":{"externalStorageClasses":[%q]}}`, externalClass))))).To(Succeed())
		Eventually(func(g Gomega) {
			cm := &corev1.ConfigMap{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: offer.Status.TenantNamespace, Name: sharingv1alpha1.OfferConfigMapName}, cm)).To(Succeed())
			g.Expect(cm.Data[sharingv1alpha1.OfferExternalStorageClassesKey]).To(MatchJSON(fmt.Sprintf(`[%q]`, externalClass)))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		remoteNS = offloadNamespace(ctx, ns)
	})

	It("binds the claim on rome through the virtual node and the twin on milan, where its pod runs", func(ctx context.Context) {
		start := time.Now()
		Expect(romeC.Create(ctx, claim(ns, "disk", ptr.To(externalClass)))).To(Succeed())
		pv := boundVolume(ctx, romeC, ns, "disk")
		GinkgoWriter.Printf("external claim Bound on rome %s after it was created\n", time.Since(start).Round(time.Millisecond))
		Expect(pv.Spec.StorageClassName).To(Equal(externalClass))
		Expect(pv.Annotations).To(HaveKeyWithValue(policies.ProvisionedByAnnotation, sharingv1alpha1.VirtualStorageProvisioner))
		Expect(hostnameAffinity(pv)).To(Equal([]string{"liqo-milan"}), "data gravity: the volume is held to milan's virtual node")

		twin := &corev1.PersistentVolumeClaim{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: remoteNS, Name: "disk"}, twin)).To(Succeed())
		Expect(twin.Spec.StorageClassName).To(HaveValue(Equal(externalClass)), "the claim's own class, on milan")
		Expect(twin.Status.Phase).To(Equal(corev1.ClaimPending), "WaitForFirstConsumer on milan: no pod there yet")
		Expect(eventNotes(ctx, ns, "disk", corev1.EventTypeNormal, "Reflected")).To(ContainElement(ContainSubstring("offered by milan")),
			"the claim says where its data lives")

		podStart := time.Now()
		app := mountingPod(ns, "app", "disk")
		app.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 100, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"rome-worker-0"}}}}}}}}
		Expect(romeC.Create(ctx, app)).To(Succeed())
		Expect(scheduledNode(ctx, ns, "app", "")).To(Equal("liqo-milan"), "rome's scheduler follows the volume's node affinity, not the pod's preference for rome-worker-0")
		expectRemoteTwinOf(ctx, remoteNS, "disk", pv, podStart)
		Eventually(func(g Gomega) {
			remotePod := &corev1.Pod{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: remoteNS, Name: "app"}, remotePod)).To(Succeed())
			g.Expect(remotePod.Spec.NodeName).NotTo(BeEmpty())
			g.Expect(remotePod.Status.Phase).To(Equal(corev1.PodRunning))
		}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "the pod runs on milan, with the twin mounted")
		GinkgoWriter.Printf("external claim: pod running on milan with the twin Bound %s after the pod was created\n", time.Since(podStart).Round(time.Millisecond))

		By("a reflected claim cannot grow: rome's API server resizes only claims of a class it has that allows expansion")
		err := romeC.Patch(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "disk"}},
			client.RawPatch(types.MergePatchType, []byte(`{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}`)))
		Expect(err).To(MatchError(ContainSubstring("storageclass that provisions the pvc must support resize")))
	})

	It("never copies a claim marked liqo.io/skip-reflection nor one of rome's own class, and warns about an unoffered class", func(ctx context.Context) {
		skipped := claim(ns, "kept", ptr.To(externalClass))
		skipped.Annotations = map[string]string{"liqo.io/skip-reflection": "true"}
		Expect(romeC.Create(ctx, skipped)).To(Succeed())
		own := claim(ns, "own", nil)
		Expect(romeC.Create(ctx, own)).To(Succeed())
		Expect(own.Spec.StorageClassName).To(HaveValue(Equal(framework.LocalPathClass)), "rome's default class")
		Expect(romeC.Create(ctx, claim(ns, "unoffered", ptr.To("archive")))).To(Succeed())
		By("a claim made after them is reflected, so they have been seen")
		Expect(romeC.Create(ctx, claim(ns, "witness", ptr.To(externalClass)))).To(Succeed())
		boundVolume(ctx, romeC, ns, "witness")

		Expect(eventNotes(ctx, ns, "unoffered", corev1.EventTypeWarning, policies.ReasonExternalClassNotOffered)).To(ContainElement(And(
			ContainSubstring(`"archive"`), ContainSubstring("milan"), ContainSubstring("spec.externalStorageClasses"), ContainSubstring("liqo.io/skip-reflection"))),
			"a Warning Event on the unoffered claim naming the class, the peer and the fix")

		Consistently(func(g Gomega) {
			for _, name := range []string{"kept", "own", "unoffered"} {
				g.Expect(gone(ctx, milanC, &corev1.PersistentVolumeClaim{}, remoteNS+"/"+name)).To(BeTrue(), "claim %s copied to milan", name)
				pvc := &corev1.PersistentVolumeClaim{}
				g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pvc)).To(Succeed())
				g.Expect(pvc.Status.Phase).To(Equal(corev1.ClaimPending), "claim %s", name)
			}
			for _, name := range []string{"kept", "own"} {
				g.Expect(reflectionReasons(ctx, g, ns, name)).To(BeEmpty(), "the storage controller leaves claim %s alone, silently", name)
			}
			g.Expect(reflectionReasons(ctx, g, ns, "unoffered")).To(ContainElement(policies.ReasonExternalClassNotOffered), "what the check above would see")
		}).WithContext(ctx).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})

	It("warns about a claim whose namespace is not offloaded, and reflects it as soon as the namespace is", func(ctx context.Context) {
		const late = "storage-external-late"
		Expect(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: late,
			Labels: map[string]string{"liqo.io/scheduling-enabled": "true"}}})).To(Succeed())
		DeferCleanup(func(ctx context.Context) {
			Expect(client.IgnoreNotFound(romeC.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: late}}))).To(Succeed())
		})
		Expect(romeC.Create(ctx, claim(late, "disk", ptr.To(externalClass)))).To(Succeed())
		Expect(eventNotes(ctx, late, "disk", corev1.EventTypeWarning, policies.ReasonNamespaceNotOffloaded)).To(ContainElement(And(
			ContainSubstring("offered by milan"), ContainSubstring("NamespaceOffloading"), ContainSubstring("liqo.io/skip-reflection"))))

		By("the NamespaceOffloading, applied after the claim, requeues it: no wait for the 30 s recheck")
		start := time.Now()
		Expect(romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
			ObjectMeta: metav1.ObjectMeta{Namespace: late, Name: offloadingv1alpha1.RequiredName},
			Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.DefaultNameMappingStrategy,
				PodOffloadingStrategy: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy}})).To(Succeed())
		Eventually(func(g Gomega) {
			pvc := &corev1.PersistentVolumeClaim{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: late, Name: "disk"}, pvc)).To(Succeed())
			g.Expect(pvc.Status.Phase).To(Equal(corev1.ClaimBound))
		}).WithContext(ctx).WithTimeout(20*time.Second).WithPolling(200*time.Millisecond).Should(Succeed(), "Bound once the namespace is offloaded")
		GinkgoWriter.Printf("external claim: Bound %s after its namespace's NamespaceOffloading was applied\n", time.Since(start).Round(time.Millisecond))
	})

	It("deletes the twin and milan's volume with the claim", func(ctx context.Context) {
		twin := &corev1.PersistentVolumeClaim{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: remoteNS, Name: "disk"}, twin)).To(Succeed())
		Expect(twin.Spec.VolumeName).NotTo(BeEmpty(), "the binding spec ran")
		pvc := &corev1.PersistentVolumeClaim{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "disk"}, pvc)).To(Succeed())
		Expect(romeC.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app"}})).To(Succeed())
		start := time.Now()
		Expect(romeC.Delete(ctx, pvc)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(gone(ctx, romeC, &corev1.PersistentVolumeClaim{}, ns+"/disk")).To(BeTrue(), "rome's claim")
			g.Expect(gone(ctx, romeC, &corev1.PersistentVolume{}, pvc.Spec.VolumeName)).To(BeTrue(), "rome's virtual volume")
			g.Expect(gone(ctx, milanC, &corev1.PersistentVolumeClaim{}, remoteNS+"/disk")).To(BeTrue(), "milan's twin claim")
			g.Expect(gone(ctx, milanC, &corev1.PersistentVolume{}, twin.Spec.VolumeName)).To(BeTrue(), "milan's volume %s", twin.Spec.VolumeName)
		}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())
		GinkgoWriter.Printf("external claim: twin and milan's volume gone %s after the claim was deleted\n", time.Since(start).Round(time.Millisecond))
	})
})

// expectRemoteTwinOf waits for the twin on milan to be Bound to a volume of
// milan's provisioner, and for rome's virtual volume to show it.
func expectRemoteTwinOf(ctx context.Context, ns, name string, pv *corev1.PersistentVolume, start time.Time) {
	realPV := boundVolume(ctx, milanC, ns, name)
	GinkgoWriter.Printf("twin %s/%s Bound on milan %s after its pod was created\n", ns, name, time.Since(start).Round(time.Millisecond))
	Expect(realPV.Annotations).To(HaveKeyWithValue(policies.ProvisionedByAnnotation, framework.LocalPathProvisioner))
	Eventually(func(g Gomega) {
		g.Expect(romeC.Get(ctx, client.ObjectKey{Name: pv.Name}, pv)).To(Succeed())
		g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemotePhaseAnnotation, string(corev1.ClaimBound)))
		g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemoteVolumeAnnotation, realPV.Name))
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// eventNotes waits for an event of the type and reason on claim name and
// returns the notes of all of them.
func eventNotes(ctx context.Context, ns, name, eventType, reason string) []string {
	var notes []string
	Eventually(func(g Gomega) {
		evs := &eventsv1.EventList{}
		g.Expect(romeC.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
		notes = nil
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Type == eventType && e.Reason == reason {
				notes = append(notes, e.Note)
			}
		}
		g.Expect(notes).NotTo(BeEmpty())
	}).WithContext(ctx).WithTimeout(30*time.Second).Should(Succeed(), "a %s event %s on claim %s/%s", eventType, reason, ns, name)
	return notes
}

// reflectionReasons lists the reasons of the events the storage controller
// wrote about claim name when reflecting it or refusing to.
func reflectionReasons(ctx context.Context, g Gomega, ns, name string) []string {
	evs := &eventsv1.EventList{}
	g.Expect(romeC.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
	var reasons []string
	for _, e := range evs.Items {
		if e.Regarding.Name == name && e.Action == "Reflect" {
			reasons = append(reasons, e.Reason)
		}
	}
	return reasons
}
