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

package storage

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// externalClaim is data-0 of class, with no selected node: nothing will
// schedule a pod before it binds.
func externalClaim(class string, annotations map[string]string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data-0", UID: claimUID, Annotations: annotations},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(class),
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

// offerExternal makes milan's offer list the external classes.
func offerExternal(t *testing.T, milan *k8sfake.Clientset, list string) {
	t.Helper()
	cms := milan.CoreV1().ConfigMaps(tenant)
	cm, err := cms.Get(context.Background(), sharingv1alpha1.OfferConfigMapName, metav1.GetOptions{})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	cm.Data[sharingv1alpha1.OfferExternalStorageClassesKey] = list
	_, err = cms.Update(context.Background(), cm, metav1.UpdateOptions{})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
}

func TestAClaimOfAClassMilanOffersIsReflectedThereAndBoundHere(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r, milan := setup("milan-ssd", externalClaim("remote-disk", nil))
	offerExternal(t, milan, `["remote-disk"]`)
	reconcileClaim(t, r)

	twin, err := milan.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-0", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(twin.Spec.StorageClassName).To(HaveValue(Equal("remote-disk")), "the claim's own class, not the offer's class for liqo claims")
	g.Expect(twin.Labels).To(HaveKeyWithValue(sharingv1alpha1.VirtualClaimUIDLabel, claimUID))
	pv := &corev1.PersistentVolume{}
	g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, pv)).To(Succeed())
	g.Expect(pv.Spec.StorageClassName).To(Equal("remote-disk"), "the kube-controller-manager binds a claim only to a volume of its class")
	g.Expect(pv.Spec.ClaimRef.UID).To(BeEquivalentTo(claimUID))
	g.Expect(pv.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimDelete))
	g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.TwinClaimAnnotation, milanID+":"+ns+"/data-0"))
	g.Expect(pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values).To(Equal([]string{"liqo-milan"}))
	g.Expect(r.Recorder.(*events.FakeRecorder).Events).To(Receive(And(ContainSubstring("Normal Reflected"), ContainSubstring("offered by milan"))))
}

func TestAClaimIsNotReflected(t *testing.T) {
	for _, tc := range []struct {
		name   string
		claim  *corev1.PersistentVolumeClaim
		offer  string
		local  bool   // rome has the class
		reason string // the Warning Event's, "" for none
	}{
		{name: "a class rome has binds here", claim: externalClaim("remote-disk", nil), offer: `["remote-disk"]`, local: true},
		{name: "liqo.io/skip-reflection", claim: externalClaim("remote-disk", map[string]string{virtualkubeletv1alpha1.SkipReflectionAnnotation: "true"}), offer: `["remote-disk"]`},
		{name: "a class milan does not offer", claim: externalClaim("remote-disk", nil), offer: `["archive"]`, reason: policies.ReasonExternalClassNotOffered},
		{name: "an offer without external classes", claim: externalClaim("remote-disk", nil), reason: policies.ReasonExternalClassNotOffered},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			objs := []client.Object{tc.claim}
			if tc.local {
				objs = append(objs, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "remote-disk"}, Provisioner: "rancher.io/local-path"})
			}
			r, milan := setup("", objs...)
			recorder := events.NewFakeRecorder(10)
			r.Recorder = recorder
			if tc.offer != "" {
				offerExternal(t, milan, tc.offer)
			}
			reconcileClaim(t, r)
			claims, err := milan.CoreV1().PersistentVolumeClaims(ns).List(context.Background(), metav1.ListOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(claims.Items).To(BeEmpty(), "no twin on milan")
			pvs := &corev1.PersistentVolumeList{}
			g.Expect(r.List(context.Background(), pvs)).To(Succeed())
			g.Expect(pvs.Items).To(BeEmpty(), "no volume on rome")
			if tc.reason == "" {
				g.Expect(recorder.Events).To(BeEmpty())
				return
			}
			g.Expect(recorder.Events).To(Receive(And(ContainSubstring("Warning "+tc.reason), ContainSubstring("spec.externalStorageClasses"))))
		})
	}
}

func TestAReflectedClaimFollowsItsTwinAndIsShownLostWithoutIt(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r, milan := setup("", externalClaim("remote-disk", nil))
	offerExternal(t, milan, `["remote-disk"]`)
	reconcileClaim(t, r)
	g.Expect(r.Recorder.(*events.FakeRecorder).Events).To(Receive(ContainSubstring("Reflected")))
	pvc := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-0"}, pvc)).To(Succeed())
	pvc.Spec.VolumeName = "pvc-" + claimUID // the kube-controller-manager's binding
	g.Expect(r.Update(ctx, pvc)).To(Succeed())

	twin, err := milan.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-0", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	twin.Spec.VolumeName, twin.Status.Phase = "pvc-on-milan", corev1.ClaimBound
	_, err = milan.CoreV1().PersistentVolumeClaims(ns).Update(ctx, twin, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	reconcileClaim(t, r)
	pv := &corev1.PersistentVolume{}
	g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, pv)).To(Succeed())
	g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemotePhaseAnnotation, string(corev1.ClaimBound)))
	g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemoteVolumeAnnotation, "pvc-on-milan"))

	g.Expect(milan.CoreV1().PersistentVolumeClaims(ns).Delete(ctx, "data-0", metav1.DeleteOptions{})).To(Succeed())
	reconcileClaim(t, r)
	g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, pv)).To(Succeed())
	g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemotePhaseAnnotation, policies.TwinLost))
	g.Expect(r.Recorder.(*events.FakeRecorder).Events).To(Receive(ContainSubstring("TwinClaimLost")))
	_, err = milan.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-0", metav1.GetOptions{})
	g.Expect(err).To(HaveOccurred(), "a bound claim is never reflected again: an empty twin would pass for its data")
}

func TestAnOffloadingRequeuesItsPendingExternalClaims(t *testing.T) {
	g := NewWithT(t)
	bound := externalClaim("remote-disk", nil)
	bound.Name, bound.UID, bound.Spec.VolumeName = "bound", "uid-bound", "pvc-uid-bound"
	skipped := externalClaim("remote-disk", map[string]string{virtualkubeletv1alpha1.SkipReflectionAnnotation: ""})
	skipped.Name, skipped.UID = "skipped", "uid-skipped"
	liqo := virtualClaim("")
	liqo.Name, liqo.UID = "liqo", "uid-liqo"
	elsewhere := externalClaim("remote-disk", nil)
	elsewhere.Namespace, elsewhere.UID = "other", "uid-other"
	r, _ := setup("", externalClaim("remote-disk", nil), bound, skipped, liqo, elsewhere)
	offloading := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: offloadingv1alpha1.RequiredName}}
	reqs := r.pendingExternalClaims(context.Background(), offloading)
	g.Expect(reqs).To(HaveLen(1))
	g.Expect(reqs[0].NamespacedName).To(Equal(client.ObjectKey{Namespace: ns, Name: "data-0"}))
}

func TestAClaimOfANamespaceOffloadedNowhereIsNotPolled(t *testing.T) {
	g := NewWithT(t)
	claim := externalClaim("remote-disk", nil)
	claim.Namespace = "not-offloaded"
	r, milan := setup("", claim)
	offerExternal(t, milan, `["archive"]`)
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(claim)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal(ctrl.Result{}), "no peer offers the class and the namespace is offloaded nowhere: not Spillway's to poll")
	g.Expect(r.Recorder.(*events.FakeRecorder).Events).To(BeEmpty())

	offerExternal(t, milan, `["remote-disk"]`)
	res, err = r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(claim)})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(externalRecheck), "a refused claim is decided again")
	g.Expect(r.Recorder.(*events.FakeRecorder).Events).To(Receive(ContainSubstring(policies.ReasonNamespaceNotOffloaded)))
}
