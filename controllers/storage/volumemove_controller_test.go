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

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// The move's fixtures: claim shop/data-0 bound on rome's local node to its
// virtual volume pvc-<claim UID>, asked to move to liqo-milan. The fake
// client runs no kube-controller-manager: the tests play its part (binding
// claims, completing Jobs) where a step waits for it.
const moveUID = "move-uid-1"

func boundClaim() *corev1.PersistentVolumeClaim {
	c := virtualClaim(localNode)
	c.Labels = map[string]string{"app": "db"}
	c.Spec.VolumeName = "pvc-" + claimUID
	c.Status.Phase = corev1.ClaimBound
	return c
}

func sourceVolume() *corev1.PersistentVolume {
	pv := policies.MirrorLocalVolume(boundClaim(), &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-storage", Name: "pvc-" + claimUID}},
		&corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
				Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{localNode}}}}}}}}},
		corev1.PersistentVolumeReclaimDelete)
	pv.Status.Phase = corev1.VolumeBound
	return pv
}

func volumeMove() *sharingv1alpha1.VolumeMove {
	return &sharingv1alpha1.VolumeMove{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "data-0", UID: moveUID, Generation: 1},
		Spec:       sharingv1alpha1.VolumeMoveSpec{ClaimName: "data-0", NodeName: "liqo-milan"},
	}
}

func mountingPod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "d", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-0"}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func moveSetup(objs ...client.Object) *VolumeMoveReconciler {
	s := testScheme()
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	c := fake.NewClientBuilder().WithScheme(s).WithStatusSubresource(&sharingv1alpha1.VolumeMove{}, &corev1.PersistentVolumeClaim{}).
		WithObjects(append(fixtures(), append([]client.Object{volumeMove(), boundClaim(), sourceVolume()}, objs...)...)...).Build()
	peers := &remote.Registry{}
	peers.Set(remote.Peer{ClusterID: milanID, ClusterName: "milan", NodeName: "liqo-milan", TenantNamespace: tenant, Client: k8sfake.NewSimpleClientset()})
	return &VolumeMoveReconciler{Client: c, Peers: peers, Image: "rsync:test", Recorder: events.NewFakeRecorder(50)}
}

func reconcileMove(t *testing.T, r *VolumeMoveReconciler) *sharingv1alpha1.VolumeMove {
	t.Helper()
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Namespace: ns, Name: "data-0"}})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	vm := &sharingv1alpha1.VolumeMove{}
	NewWithT(t).Expect(r.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "data-0"}, vm)).To(Succeed())
	return vm
}

func readyReason(vm *sharingv1alpha1.VolumeMove) string {
	return conditions.GetReason(vm, meta.ReadyCondition)
}

// expectSourceIntact: the claim, its volume and that volume's policy are as
// before the move, and nothing marks a rebind.
func expectSourceIntact(t *testing.T, r *VolumeMoveReconciler) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	claim := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-0"}, claim)).To(Succeed())
	g.Expect(string(claim.UID)).To(Equal(claimUID))
	g.Expect(claim.DeletionTimestamp).To(BeNil())
	pv := &corev1.PersistentVolume{}
	g.Expect(r.Get(ctx, client.ObjectKey{Name: "pvc-" + claimUID}, pv)).To(Succeed())
	g.Expect(pv.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimDelete))
	pvs := &corev1.PersistentVolumeList{}
	g.Expect(r.List(ctx, pvs, client.HasLabels{sharingv1alpha1.VolumeMoveLabel})).To(Succeed())
	g.Expect(pvs.Items).To(BeEmpty(), "no rebind started")
}

func TestAMoveOfAClaimInUseCopiesNothing(t *testing.T) {
	g := NewWithT(t)
	r := moveSetup(mountingPod("db-0"))
	vm := reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveClaimInUse))
	g.Expect(conditions.GetMessage(vm, meta.ReadyCondition)).To(ContainSubstring("db-0"))
	g.Expect(conditions.IsStalled(vm)).To(BeFalse(), "it starts by itself once the pod is gone")
	g.Expect(r.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, &corev1.PersistentVolumeClaim{})).To(Satisfy(apierrors.IsNotFound))
	jobs := &batchv1.JobList{}
	g.Expect(r.List(context.Background(), jobs)).To(Succeed())
	g.Expect(jobs.Items).To(BeEmpty())
	expectSourceIntact(t, r)
}

func TestAPodThatMountsTheClaimMidMoveStopsTheCopy(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r := moveSetup()
	vm := reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveCreatingTarget))
	target := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, target)).To(Succeed())
	g.Expect(target.Annotations).To(HaveKeyWithValue(policies.SelectedNodeAnnotation, "liqo-milan"))
	g.Expect(target.Spec.StorageClassName).To(HaveValue(Equal(sharingv1alpha1.VirtualStorageClassName)))

	g.Expect(r.Create(ctx, mountingPod("db-0"))).To(Succeed())
	vm = reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveClaimInUse))
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, target)).To(Satisfy(apierrors.IsNotFound), "the target is given up")
	expectSourceIntact(t, r)
}

// copyUnderWay drives a move to both Jobs created: the target claim bound
// (as VirtualStorageReconciler would) to a volume on liqo-milan, the
// receiver pod given an address.
func copyUnderWay(t *testing.T, r *VolumeMoveReconciler) (receiver, sender *batchv1.Job) {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	reconcileMove(t, r)
	target := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, target)).To(Succeed())
	target.UID = "target-uid"
	remoteVolume := policies.MirrorRemoteVolume(target, policies.StorageBinding{Node: "liqo-milan", Remote: true, ClusterID: milanID}, ns, corev1.PersistentVolumeReclaimDelete)
	g.Expect(r.Create(ctx, remoteVolume)).To(Succeed())
	target.Spec.VolumeName = remoteVolume.Name
	g.Expect(r.Update(ctx, target)).To(Succeed())
	target.Status.Phase = corev1.ClaimBound
	g.Expect(r.Status().Update(ctx, target)).To(Succeed())

	g.Expect(readyReason(reconcileMove(t, r))).To(Equal(policies.MoveCopying))
	receiver = &batchv1.Job{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID + "-receive"}, receiver)).To(Succeed())
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID + "-send"}, &batchv1.Job{})).To(Satisfy(apierrors.IsNotFound),
		"no sender before the receiver has an address")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "receiver-pod",
		Labels: map[string]string{batchv1.JobNameLabel: receiver.Name, sharingv1alpha1.VolumeMoveLabel: moveUID}},
		Spec: receiver.Spec.Template.Spec, Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.0.9"}}
	g.Expect(r.Create(ctx, pod)).To(Succeed())
	reconcileMove(t, r)
	sender = &batchv1.Job{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID + "-send"}, sender)).To(Succeed())
	g.Expect(sender.Spec.Template.Spec.Containers[0].Env).To(ContainElement(corev1.EnvVar{Name: "RECEIVER_ADDRESS", Value: "10.1.0.9"}))
	return receiver, sender
}

func finish(t *testing.T, r *VolumeMoveReconciler, j *batchv1.Job, cond batchv1.JobConditionType) {
	t.Helper()
	j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{Type: cond, Status: corev1.ConditionTrue, Message: "test"})
	NewWithT(t).Expect(r.Status().Update(context.Background(), j)).To(Succeed())
}

func TestAFailedCopyLeavesTheSourceIntact(t *testing.T) {
	g := NewWithT(t)
	r := moveSetup()
	receiver, sender := copyUnderWay(t, r)
	finish(t, r, receiver, batchv1.JobComplete)
	finish(t, r, sender, batchv1.JobFailed)
	vm := reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveCopyFailed))
	g.Expect(conditions.IsStalled(vm)).To(BeTrue())
	expectSourceIntact(t, r)
	g.Expect(r.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, &corev1.PersistentVolumeClaim{})).To(Succeed(),
		"the target is kept for inspection")
}

func TestOneCompletedJobIsNotEnough(t *testing.T) {
	g := NewWithT(t)
	r := moveSetup()
	_, sender := copyUnderWay(t, r)
	finish(t, r, sender, batchv1.JobComplete)
	g.Expect(readyReason(reconcileMove(t, r))).To(Equal(policies.MoveCopying))
	expectSourceIntact(t, r)
}

func TestAVerifiedCopyRebindsTheClaimToTheTarget(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r := moveSetup()
	receiver, sender := copyUnderWay(t, r)
	target := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, target)).To(Succeed())
	finish(t, r, receiver, batchv1.JobComplete)
	finish(t, r, sender, batchv1.JobComplete)

	vm := reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveRebinding))
	pv := &corev1.PersistentVolume{}
	g.Expect(r.Get(ctx, client.ObjectKey{Name: target.Spec.VolumeName}, pv)).To(Succeed())
	g.Expect(pv.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimRetain), "releasing the target claim must not delete the copy")
	g.Expect(pv.Labels).To(HaveKeyWithValue(sharingv1alpha1.VolumeMoveLabel, moveUID))
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, &corev1.PersistentVolumeClaim{})).To(Satisfy(apierrors.IsNotFound))
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: receiver.Name}, &batchv1.Job{})).To(Satisfy(apierrors.IsNotFound))

	reconcileMove(t, r) // deletes the old claim
	claim := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-0"}, claim)).To(Satisfy(apierrors.IsNotFound))

	reconcileMove(t, r) // makes it again, pre-bound
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-0"}, claim)).To(Succeed())
	g.Expect(string(claim.UID)).NotTo(Equal(claimUID))
	g.Expect(claim.Spec.VolumeName).To(Equal(pv.Name))
	g.Expect(claim.Labels).To(HaveKeyWithValue("app", "db"))
	g.Expect(claim.Annotations).NotTo(HaveKey(policies.SelectedNodeAnnotation), "the old binding's annotations are left behind")
	g.Expect(r.Get(ctx, client.ObjectKey{Name: pv.Name}, pv)).To(Succeed())
	g.Expect(pv.Spec.ClaimRef.Name).To(Equal("data-0"))
	g.Expect(pv.Spec.ClaimRef.UID).To(BeEmpty(), "pre-bound by name, as the volume binding expects")

	claim.Status.Phase = corev1.ClaimBound // the kube-controller-manager binds them
	g.Expect(r.Status().Update(ctx, claim)).To(Succeed())
	vm = reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveMoved))
	g.Expect(conditions.IsReady(vm)).To(BeTrue())
	g.Expect(vm.Status.ObservedGeneration).To(BeEquivalentTo(1))
	g.Expect(r.Get(ctx, client.ObjectKey{Name: pv.Name}, pv)).To(Succeed())
	g.Expect(pv.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimDelete), "the target's own policy is back")
	g.Expect(pv.Labels).NotTo(HaveKey(sharingv1alpha1.VolumeMoveLabel))
	g.Expect(pv.Annotations).NotTo(HaveKey(sharingv1alpha1.MovedClaimAnnotation))

	pv.Status.Phase = corev1.VolumeBound
	g.Expect(r.Status().Update(ctx, pv)).To(Succeed())
	g.Expect(readyReason(reconcileMove(t, r))).To(Equal(policies.MoveMoved), "a done move stays Ready: the claim is where it says")
}

func TestAMoveWaitsForTheTargetNodesPeering(t *testing.T) {
	g := NewWithT(t)
	r := moveSetup()
	r.Peers = &remote.Registry{}
	vm := reconcileMove(t, r)
	g.Expect(readyReason(vm)).To(Equal(policies.MoveTargetNotAPeer))
	expectSourceIntact(t, r)
}

func TestAMoveToALocalNodeNeedsTheLocalClass(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r := moveSetup(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-worker-2"}})
	vm := &sharingv1alpha1.VolumeMove{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-0"}, vm)).To(Succeed())
	vm.Spec.NodeName = "rome-worker-2"
	g.Expect(r.Update(ctx, vm)).To(Succeed())
	g.Expect(readyReason(reconcileMove(t, r))).To(Equal(policies.MoveTargetClassMissing))
	r.LocalStorageClass = sharingv1alpha1.VirtualStorageClassName // any class that exists
	g.Expect(readyReason(reconcileMove(t, r))).To(Equal(policies.MoveCreatingTarget))
}

func TestANodeChangedMidCopyRestartsTheCopy(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	r := moveSetup(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-worker-2"}})
	r.LocalStorageClass = sharingv1alpha1.VirtualStorageClassName // any class that exists
	receiver, _ := copyUnderWay(t, r)
	vm := &sharingv1alpha1.VolumeMove{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data-0"}, vm)).To(Succeed())
	vm.Spec.NodeName = "rome-worker-2"
	g.Expect(r.Update(ctx, vm)).To(Succeed())
	reconcileMove(t, r)
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, &corev1.PersistentVolumeClaim{})).To(Satisfy(apierrors.IsNotFound),
		"the target made for liqo-milan is given up")
	g.Expect(r.Get(ctx, client.ObjectKeyFromObject(receiver), &batchv1.Job{})).To(Satisfy(apierrors.IsNotFound))
	expectSourceIntact(t, r)
	reconcileMove(t, r)
	target := &corev1.PersistentVolumeClaim{}
	g.Expect(r.Get(ctx, client.ObjectKey{Namespace: ns, Name: "move-" + moveUID}, target)).To(Succeed())
	g.Expect(target.Annotations).To(HaveKeyWithValue(policies.SelectedNodeAnnotation, "rome-worker-2"))
}
