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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// rome consumes, milan provides; shop is offloaded to milan with its own name.
const (
	ns        = "shop"
	milanID   = "milan-id"
	tenant    = "liqo-tenant-rome"
	claimUID  = "uid-data-0"
	localNode = "rome-worker-0"
)

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	return s
}

func virtualClaim(node string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data-0", UID: claimUID,
			Annotations: map[string]string{policies.SelectedNodeAnnotation: node}},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: ptr.To(sharingv1alpha1.VirtualStorageClassName),
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
	}
}

func fixtures() []client.Object {
	virtualNode := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "liqo-milan",
		Labels: virtualkubeletv1alpha1.VirtualNodeLabels("liqo-milan", milanID, nil)}}
	offloading := &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: offloadingv1alpha1.RequiredName},
		Status: offloadingv1alpha1.NamespaceOffloadingStatus{RemoteNamespaceName: ns,
			RemoteNamespacesConditions: map[string]offloadingv1alpha1.RemoteNamespaceConditions{
				policies.UniqueClusterName("milan", milanID): {{Type: offloadingv1alpha1.NamespaceReadyCondition, Status: metav1.ConditionTrue}}}}}
	return []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: localNode, Labels: map[string]string{corev1.LabelHostname: localNode}}},
		virtualNode, offloading,
		&storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: sharingv1alpha1.VirtualStorageClassName},
			Provisioner: sharingv1alpha1.VirtualStorageProvisioner, ReclaimPolicy: ptr.To(corev1.PersistentVolumeReclaimDelete)},
	}
}

// setup is rome's provisioner with the objects given, and milan's API
// holding the offer ConfigMap (offeredClass "" names no class).
func setup(offeredClass string, objs ...client.Object) (*VirtualStorageReconciler, *k8sfake.Clientset) {
	local := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(append(fixtures(), objs...)...).Build()
	offer := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: sharingv1alpha1.OfferConfigMapName}, Data: map[string]string{}}
	if offeredClass != "" {
		offer.Data[sharingv1alpha1.OfferStorageClassKey] = offeredClass
	}
	milan := k8sfake.NewSimpleClientset(offer)
	peers := &remote.Registry{}
	peers.Set(remote.Peer{ClusterID: milanID, ClusterName: "milan", NodeName: "liqo-milan", TenantNamespace: tenant, Client: milan})
	return &VirtualStorageReconciler{Client: local, Peers: peers, LocalClusterID: "rome-id", StorageNamespace: sharingv1alpha1.DefaultStorageNamespace,
		Recorder: events.NewFakeRecorder(10)}, milan
}

func reconcileClaim(t *testing.T, r *VirtualStorageReconciler) ctrl.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "data-0"}})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return res
}

func TestLocalBindingMakesATwinThenMirrorsItsVolume(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r, _ := setup("", virtualClaim(localNode))
	r.LocalStorageClass = "fast-local"
	reconcileClaim(t, r)

	twin := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: sharingv1alpha1.DefaultStorageNamespace, Name: "pvc-" + claimUID}, twin)).To(Succeed())
	g.Expect(twin.Spec.StorageClassName).To(HaveValue(Equal("fast-local")), "--storage-class")
	g.Expect(twin.Annotations).To(HaveKeyWithValue(policies.SelectedNodeAnnotation, localNode))
	g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, &corev1.PersistentVolume{})).To(Satisfy(apierrors.IsNotFound),
		"no virtual volume before the twin is bound")

	real := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-real"}, Spec: corev1.PersistentVolumeSpec{
		Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/opt/local-path-provisioner/x"}},
		NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{localNode}}}}}}}}}
	g.Expect(r.Create(ctx, real)).To(Succeed())
	twin.Spec.VolumeName = "pvc-real"
	g.Expect(r.Update(ctx, twin)).To(Succeed())
	twin.Status.Phase = corev1.ClaimBound
	g.Expect(r.Status().Update(ctx, twin)).To(Succeed())
	reconcileClaim(t, r)

	pv := &corev1.PersistentVolume{}
	g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, pv)).To(Succeed())
	g.Expect(pv.Spec.NodeAffinity).To(Equal(real.Spec.NodeAffinity))
	g.Expect(pv.Spec.HostPath).To(Equal(real.Spec.HostPath))
	g.Expect(pv.Spec.ClaimRef.UID).To(BeEquivalentTo(claimUID))
}

func TestLocalBindingRefusesAClaimThatIsNotItsTwin(t *testing.T) {
	g := NewWithT(t)
	squatter := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: sharingv1alpha1.DefaultStorageNamespace, Name: "pvc-" + claimUID}}
	r, _ := setup("", virtualClaim(localNode), squatter)
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "data-0"}})
	g.Expect(err).To(MatchError(ContainSubstring("is not the twin of shop/data-0")))
}

func TestRemoteBindingUsesTheOfferedClassOrTheProvidersDefault(t *testing.T) {
	for _, tc := range []struct {
		offered string
		want    *string
	}{{offered: "milan-ssd", want: ptr.To("milan-ssd")}, {offered: "", want: nil}} {
		t.Run("offered "+tc.offered, func(t *testing.T) {
			g := NewWithT(t)
			ctx := context.Background()
			r, milan := setup(tc.offered, virtualClaim("liqo-milan"))
			reconcileClaim(t, r)

			twin, err := milan.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-0", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(twin.Spec.StorageClassName).To(Equal(tc.want))
			g.Expect(twin.Annotations).NotTo(HaveKey(policies.SelectedNodeAnnotation), "the provider's scheduler picks its node")
			g.Expect(twin.Labels).To(HaveKeyWithValue(sharingv1alpha1.OriginClusterIDLabel, "rome-id"))
			pv := &corev1.PersistentVolume{}
			g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, pv)).To(Succeed())
			g.Expect(pv.Spec.NodeAffinity.Required.NodeSelectorTerms[0].MatchExpressions[0].Values).To(Equal([]string{"liqo-milan"}))
			g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.TwinClaimAnnotation, milanID+":"+ns+"/data-0"))
		})
	}
}

func TestRemoteBindingNeverTakesOverAProvidersClaim(t *testing.T) {
	g := NewWithT(t)
	r, milan := setup("", virtualClaim("liqo-milan"))
	_, err := milan.CoreV1().PersistentVolumeClaims(ns).Create(context.Background(),
		&corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data-0"}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "data-0"}})
	g.Expect(err).To(MatchError(ContainSubstring("made there by someone else")))
	g.Expect(r.Get(context.Background(), client.ObjectKey{Name: "pvc-" + claimUID}, &corev1.PersistentVolume{})).To(Satisfy(apierrors.IsNotFound))
}

func TestRemoteBindingWaitsForAnOffloadedNamespace(t *testing.T) {
	g := NewWithT(t)
	claim := virtualClaim("liqo-milan")
	claim.Namespace = "not-offloaded"
	r, _ := setup("", claim)
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(claim)})
	g.Expect(err).To(MatchError(ContainSubstring("has no NamespaceOffloading")))
}

func TestAClaimWithoutItsFirstPodWaits(t *testing.T) {
	g := NewWithT(t)
	claim := virtualClaim("")
	delete(claim.Annotations, policies.SelectedNodeAnnotation)
	r, _ := setup("", claim)
	g.Expect(reconcileClaim(t, r)).To(Equal(ctrl.Result{}))
	twins := &corev1.PersistentVolumeClaimList{}
	g.Expect(r.List(context.Background(), twins, client.InNamespace(sharingv1alpha1.DefaultStorageNamespace))).To(Succeed())
	g.Expect(twins.Items).To(BeEmpty())
}

func TestReleasedVolumesDeleteTheirTwinFirst(t *testing.T) {
	for _, remoteTwin := range []bool{false, true} {
		t.Run(map[bool]string{false: "local", true: "remote"}[remoteTwin], func(t *testing.T) {
			g := NewWithT(t)
			ctx := context.Background()
			vs, milan := setup("")
			twinNS, ref := sharingv1alpha1.DefaultStorageNamespace, sharingv1alpha1.DefaultStorageNamespace+"/pvc-"+claimUID
			if remoteTwin {
				twinNS, ref = ns, milanID+":"+ns+"/pvc-"+claimUID
			}
			twin := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: twinNS, Name: "pvc-" + claimUID,
				Labels: map[string]string{sharingv1alpha1.VirtualClaimUIDLabel: claimUID}}}
			pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + claimUID,
				Labels:      map[string]string{sharingv1alpha1.VirtualClaimUIDLabel: claimUID},
				Annotations: map[string]string{policies.ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner, sharingv1alpha1.TwinClaimAnnotation: ref}},
				Spec:   corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete},
				Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeReleased}}
			g.Expect(vs.Create(ctx, pv)).To(Succeed())
			g.Expect(vs.Status().Update(ctx, pv)).To(Succeed())
			if remoteTwin {
				_, err := milan.CoreV1().PersistentVolumeClaims(twinNS).Create(ctx, twin, metav1.CreateOptions{})
				g.Expect(err).NotTo(HaveOccurred())
			} else {
				g.Expect(vs.Create(ctx, twin)).To(Succeed())
			}
			r := &VirtualVolumeReconciler{Client: vs.Client, Peers: vs.Peers}
			_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: pv.Name}})
			g.Expect(err).NotTo(HaveOccurred())
			if remoteTwin {
				_, err = milan.CoreV1().PersistentVolumeClaims(twinNS).Get(ctx, twin.Name, metav1.GetOptions{})
			} else {
				err = vs.Get(ctx, client.ObjectKeyFromObject(twin), &corev1.PersistentVolumeClaim{})
			}
			g.Expect(err).To(Satisfy(apierrors.IsNotFound), "the twin is deleted")
			g.Expect(vs.Get(ctx, client.ObjectKey{Name: pv.Name}, &corev1.PersistentVolume{})).To(Satisfy(apierrors.IsNotFound))
		})
	}
}

func TestAReleasedRemoteVolumeWhosePeerIsGoneIsKept(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	vs, _ := setup("")
	vs.Peers.Delete(milanID)
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + claimUID,
		Annotations: map[string]string{policies.ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner,
			sharingv1alpha1.TwinClaimAnnotation: milanID + ":" + ns + "/data-0"}},
		Spec:   corev1.PersistentVolumeSpec{PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete},
		Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeReleased}}
	g.Expect(vs.Create(ctx, pv)).To(Succeed())
	g.Expect(vs.Status().Update(ctx, pv)).To(Succeed())
	r := &VirtualVolumeReconciler{Client: vs.Client, Peers: vs.Peers}
	_, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: pv.Name}})
	g.Expect(err).To(MatchError(ContainSubstring("peering is not running")))
	g.Expect(vs.Get(ctx, client.ObjectKey{Name: pv.Name}, &corev1.PersistentVolume{})).To(Succeed(), "the volume is kept until its twin can be deleted")
}

func TestAGrownClaimGrowsItsTwinThenItsVolume(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	claim := virtualClaim(localNode)
	claim.Spec.VolumeName = "pvc-" + claimUID
	claim.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse("2Gi")
	twin := policies.TwinClaim(virtualClaim(localNode), sharingv1alpha1.DefaultStorageNamespace, "pvc-"+claimUID, nil, localNode)
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + claimUID, Annotations: map[string]string{
		policies.ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner, sharingv1alpha1.TwinClaimAnnotation: sharingv1alpha1.DefaultStorageNamespace + "/" + twin.Name}},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
	r, _ := setup("", claim, twin, pv)
	reconcileClaim(t, r)

	g.Expect(r.Get(ctx, client.ObjectKeyFromObject(twin), twin)).To(Succeed())
	g.Expect(twin.Spec.Resources.Requests.Storage().String()).To(Equal("2Gi"), "the twin asks for the new size")
	g.Expect(r.Get(ctx, client.ObjectKeyFromObject(pv), pv)).To(Succeed())
	g.Expect(pv.Spec.Capacity.Storage().String()).To(Equal("1Gi"), "the volume waits for the twin's capacity")

	twin.Status.Phase, twin.Status.Capacity = corev1.ClaimBound, corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
	g.Expect(r.Status().Update(ctx, twin)).To(Succeed())
	reconcileClaim(t, r)
	g.Expect(r.Get(ctx, client.ObjectKeyFromObject(pv), pv)).To(Succeed())
	g.Expect(pv.Spec.Capacity.Storage().String()).To(Equal("2Gi"))
	g.Expect(r.Get(ctx, client.ObjectKeyFromObject(claim), claim)).To(Succeed())
	g.Expect(claim.Status.Capacity.Storage().String()).To(Equal("2Gi"))
}

func TestALostRemoteTwinIsShownAndNeverMadeAgain(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	claim := virtualClaim("liqo-milan")
	claim.Spec.VolumeName = "pvc-" + claimUID
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + claimUID, Annotations: map[string]string{
		policies.ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner, sharingv1alpha1.TwinClaimAnnotation: milanID + ":" + ns + "/data-0",
		sharingv1alpha1.RemotePhaseAnnotation: string(corev1.ClaimBound)}},
		Spec: corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}
	r, milan := setup("", claim, pv)
	g.Expect(reconcileClaim(t, r)).To(Equal(ctrl.Result{}), "nothing to poll: a deleted twin does not come back")
	g.Expect(r.Get(ctx, client.ObjectKeyFromObject(pv), pv)).To(Succeed())
	g.Expect(pv.Annotations).To(HaveKeyWithValue(sharingv1alpha1.RemotePhaseAnnotation, policies.TwinLost))
	g.Expect(r.Recorder.(*events.FakeRecorder).Events).To(Receive(ContainSubstring("TwinClaimLost")))
	_, err := milan.CoreV1().PersistentVolumeClaims(ns).Get(ctx, "data-0", metav1.GetOptions{})
	g.Expect(err).To(Satisfy(apierrors.IsNotFound), "an empty twin is never made in its place")
}
