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
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

// Moving a volume: a VolumeMove written by `spillway move volume` moves a
// claim bound on rome's worker to milan. What the lab simulates: it has no
// container runtime, so no rsync runs and no byte moves. kwok completes
// rome's Job pods (the sender) at once, and this spec plays the runtime for
// the receiver, which runs on milan as an offloaded pod no kwok stage
// completes: it labels that pod lab.spillway.dev/completes (the receiver's
// rsync exiting 0) or fails it (exiting 1). What is real is everything the
// manager does: the refusal while a pod mounts the claim, the target claim
// and its twin on milan, the two Jobs (checked here as objects), the order
// (nothing deleted before both Jobs succeeded), the rebinding, and the next
// pod's scheduling.
var _ = Describe("moving a volume", Ordered, func() {
	const ns = "storage-move"
	var remoteNS string

	BeforeAll(func(ctx context.Context) {
		remoteNS = offloadNamespace(ctx, ns)
	})

	It("refuses a claim in use, moves it once detached, and its next pod follows it to milan", func(ctx context.Context) {
		source := detachedLocalClaim(ctx, ns, "data", true)

		By("spillway move volume writes the VolumeMove; applied while a pod mounts the claim, it copies nothing")
		vm := volumeMoveFromCLI(ns, "data", "liqo-milan")
		Expect(romeC.Create(ctx, vm)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(vm), vm)).To(Succeed())
			g.Expect(conditions.GetReason(vm, meta.ReadyCondition)).To(Equal(policies.MoveClaimInUse))
			g.Expect(conditions.GetMessage(vm, meta.ReadyCondition)).To(ContainSubstring("writer"))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			g.Expect(moveObjects(ctx, g, ns, vm.UID)).To(BeEmpty(), "no target claim, Job or Secret while the claim is in use")
			expectUntouched(ctx, g, ns, source)
		}).WithContext(ctx).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

		By("the pod goes: the move starts by itself, and waits for both Jobs with the source intact")
		Expect(romeC.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "writer"}})).To(Succeed())
		start := time.Now()
		receiverOnMilan := receiverPodOnMilan(ctx, remoteNS, vm.UID)
		expectCopyJobs(ctx, ns, vm.UID, source)
		Consistently(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(vm), vm)).To(Succeed())
			g.Expect(conditions.GetReason(vm, meta.ReadyCondition)).To(Equal(policies.MoveCopying), "the receiver has not finished")
			expectUntouched(ctx, g, ns, source)
		}).WithContext(ctx).WithTimeout(3 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())

		By("the receiver's rsync exits 0 (the spec plays milan's runtime): the claim is rebound to the copy on milan")
		Expect(milanC.Patch(ctx, receiverOnMilan, client.RawPatch(types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"`+lab.CompletesLabel+`":"true"}}}`)))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(vm), vm)).To(Succeed())
			g.Expect(conditions.IsReady(vm)).To(BeTrue(), "Ready: %s", conditions.GetMessage(vm, meta.ReadyCondition))
			g.Expect(conditions.GetReason(vm, meta.ReadyCondition)).To(Equal(policies.MoveMoved))
		}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(250 * time.Millisecond).Should(Succeed())
		GinkgoWriter.Printf("move: Ready %s after the claim was detached\n", time.Since(start).Round(time.Millisecond))
		moved := boundVolume(ctx, romeC, ns, "data")
		Expect(hostnameAffinity(moved)).To(Equal([]string{"liqo-milan"}), "data gravity: the volume is held to milan's virtual node")
		Expect(moved.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimDelete), "the liqo class's policy, back after the rebind")
		pvc := &corev1.PersistentVolumeClaim{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "data"}, pvc)).To(Succeed())
		Expect(pvc.UID).NotTo(Equal(source.claim.UID), "a bound claim cannot change volume: it was made again")
		Expect(moveEventReasons(ctx, ns, vm.Name)).To(ContainElements("CreatingTargetClaim", "JobCreated", "CopyVerified", "SourceReleased", "ClaimRebound", "Moved"))
		By("the source is reclaimed by its policy (Delete) only now: the local twin and the old virtual volume go")
		Eventually(func(g Gomega) {
			g.Expect(gone(ctx, romeC, &corev1.PersistentVolume{}, source.volume.Name)).To(BeTrue())
			g.Expect(gone(ctx, romeC, &corev1.PersistentVolumeClaim{}, sharingv1alpha1.DefaultStorageNamespace+"/"+source.twin)).To(BeTrue())
			g.Expect(moveObjects(ctx, g, ns, vm.UID)).To(BeEmpty(), "the Jobs, their Secret and the target claim are gone")
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		By("the next pod of the claim is scheduled on milan's virtual node and runs on milan with the twin")
		reader := mountingPod(ns, "reader", "data")
		Expect(romeC.Create(ctx, reader)).To(Succeed())
		Expect(scheduledNode(ctx, ns, "reader", "")).To(Equal("liqo-milan"))
		Eventually(func(g Gomega) {
			remotePod := &corev1.Pod{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: remoteNS, Name: "reader"}, remotePod)).To(Succeed())
			g.Expect(remotePod.Spec.Volumes[0].PersistentVolumeClaim.ClaimName).To(Equal(policies.MoveObjectName(string(vm.UID))),
				"the offloaded pod names the twin the copy was received in")
			g.Expect(remotePod.Status.Phase).To(Equal(corev1.PodRunning))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	})

	It("keeps the source when a copy Job fails", func(ctx context.Context) {
		source := detachedLocalClaim(ctx, ns, "kept", false)
		vm := volumeMoveFromCLI(ns, "kept", "liqo-milan")
		Expect(romeC.Create(ctx, vm)).To(Succeed())
		receiverOnMilan := receiverPodOnMilan(ctx, remoteNS, vm.UID)

		By("the receiver's rsync exits 1 (the spec plays milan's runtime)")
		receiverOnMilan.Status.Phase = corev1.PodFailed
		receiverOnMilan.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "rsync", Image: receiverOnMilan.Spec.Containers[0].Image,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Reason: "Error",
				StartedAt: metav1.Now(), FinishedAt: metav1.Now()}}}}
		Expect(milanC.Status().Update(ctx, receiverOnMilan)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(vm), vm)).To(Succeed())
			g.Expect(conditions.GetReason(vm, meta.ReadyCondition)).To(Equal(policies.MoveCopyFailed))
			g.Expect(conditions.IsStalled(vm)).To(BeTrue())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		Expect(conditions.GetMessage(vm, meta.ReadyCondition)).To(ContainSubstring("untouched"))
		Consistently(func(g Gomega) {
			expectUntouched(ctx, g, ns, source)
			pvs := &corev1.PersistentVolumeList{}
			g.Expect(romeC.List(ctx, pvs, client.MatchingLabels{sharingv1alpha1.VolumeMoveLabel: string(vm.UID)})).To(Succeed())
			g.Expect(pvs.Items).To(BeEmpty(), "no rebind started")
		}).WithContext(ctx).WithTimeout(5 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
	})
})

// localClaim is a liqo claim bound on rome's worker, its volume and twin.
type localClaim struct {
	claim  *corev1.PersistentVolumeClaim
	volume *corev1.PersistentVolume
	twin   string
}

// detachedLocalClaim binds a liqo claim on rome-worker-0 through a pod
// "writer" held there, which is deleted unless keepWriter.
func detachedLocalClaim(ctx context.Context, ns, name string, keepWriter bool) localClaim {
	Expect(romeC.Create(ctx, claim(ns, name, ptr.To(sharingv1alpha1.VirtualStorageClassName)))).To(Succeed())
	writer := mountingPod(ns, "writer", name)
	writer.Spec.NodeSelector = map[string]string{corev1.LabelHostname: "rome-worker-0"}
	Expect(romeC.Create(ctx, writer)).To(Succeed())
	pv := boundVolume(ctx, romeC, ns, name)
	Expect(hostnameAffinity(pv)).To(Equal([]string{"rome-worker-0"}))
	c := localClaim{claim: &corev1.PersistentVolumeClaim{}, volume: pv, twin: policies.LocalTwinClaimName(string(pv.Spec.ClaimRef.UID))}
	Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, c.claim)).To(Succeed())
	if !keepWriter {
		Expect(romeC.Delete(ctx, writer)).To(Succeed())
		Eventually(func() bool { return gone(ctx, romeC, &corev1.Pod{}, ns+"/writer") }).WithContext(ctx).WithTimeout(30 * time.Second).Should(BeTrue())
	}
	return c
}

// volumeMoveFromCLI runs `spillway move volume` and reads the VolumeMove it prints.
func volumeMoveFromCLI(ns, claimName, node string) *sharingv1alpha1.VolumeMove {
	bin, err := framework.Binaries()
	Expect(err).NotTo(HaveOccurred())
	out, err := exec.Command(filepath.Join(bin, "spillway"), "move", "volume", claimName, "--namespace", ns, "--node", node, "-o", "yaml").Output()
	Expect(err).NotTo(HaveOccurred())
	vm := &sharingv1alpha1.VolumeMove{}
	Expect(yaml.UnmarshalStrict(out, vm)).To(Succeed())
	Expect(vm.Spec).To(Equal(sharingv1alpha1.VolumeMoveSpec{ClaimName: claimName, NodeName: node}))
	return vm
}

// expectUntouched: the claim, its volume (with its policy) and its twin are
// as before the move.
func expectUntouched(ctx context.Context, g Gomega, ns string, c localClaim) {
	pvc := &corev1.PersistentVolumeClaim{}
	g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(c.claim), pvc)).To(Succeed())
	g.Expect(pvc.UID).To(Equal(c.claim.UID))
	g.Expect(pvc.DeletionTimestamp).To(BeNil())
	g.Expect(pvc.Spec.VolumeName).To(Equal(c.volume.Name))
	pv := &corev1.PersistentVolume{}
	g.Expect(romeC.Get(ctx, client.ObjectKey{Name: c.volume.Name}, pv)).To(Succeed())
	g.Expect(pv.Spec.PersistentVolumeReclaimPolicy).To(Equal(corev1.PersistentVolumeReclaimDelete))
	g.Expect(hostnameAffinity(pv)).To(Equal([]string{"rome-worker-0"}))
	twin := &corev1.PersistentVolumeClaim{}
	g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: sharingv1alpha1.DefaultStorageNamespace, Name: c.twin}, twin)).To(Succeed())
	g.Expect(twin.DeletionTimestamp).To(BeNil())
}

// moveObjects names what the move made in the namespace: target claim,
// Jobs, Secret.
func moveObjects(ctx context.Context, g Gomega, ns string, uid types.UID) []string {
	var names []string
	sel := client.MatchingLabels{sharingv1alpha1.VolumeMoveLabel: string(uid)}
	claims, jobs, secrets := &corev1.PersistentVolumeClaimList{}, &batchv1.JobList{}, &corev1.SecretList{}
	g.Expect(romeC.List(ctx, claims, client.InNamespace(ns), sel)).To(Succeed())
	g.Expect(romeC.List(ctx, jobs, client.InNamespace(ns), sel)).To(Succeed())
	g.Expect(romeC.List(ctx, secrets, client.InNamespace(ns), sel)).To(Succeed())
	for _, c := range claims.Items {
		names = append(names, "claim/"+c.Name)
	}
	for _, j := range jobs.Items {
		names = append(names, "job/"+j.Name)
	}
	for _, s := range secrets.Items {
		names = append(names, "secret/"+s.Name)
	}
	return names
}

// receiverPodOnMilan waits for the move's receiver to run on milan.
func receiverPodOnMilan(ctx context.Context, remoteNS string, uid types.UID) *corev1.Pod {
	pod := &corev1.Pod{}
	Eventually(func(g Gomega) {
		pods := &corev1.PodList{}
		g.Expect(milanC.List(ctx, pods, client.InNamespace(remoteNS), client.MatchingLabels{sharingv1alpha1.VolumeMoveLabel: string(uid)})).To(Succeed())
		g.Expect(pods.Items).To(HaveLen(1))
		g.Expect(pods.Items[0].Status.Phase).To(Equal(corev1.PodRunning))
		*pod = pods.Items[0]
	}).WithContext(ctx).WithTimeout(60*time.Second).Should(Succeed(), "the receiver runs on milan")
	Expect(pod.Spec.Volumes).To(ContainElement(HaveField("VolumeSource.PersistentVolumeClaim.ClaimName", policies.MoveObjectName(string(uid)))),
		"it mounts the target's twin, bound on milan")
	return pod
}

// expectCopyJobs checks the two Jobs as objects: the receiver serves the
// target claim with rsync, the sender mounts the source read-only on rome's
// worker, pushes to the receiver's address and verifies with --checksum.
func expectCopyJobs(ctx context.Context, ns string, uid types.UID, source localClaim) {
	receiver, sender := &batchv1.Job{}, &batchv1.Job{}
	Eventually(func(g Gomega) {
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: policies.MoveJobName(string(uid), "receive")}, receiver)).To(Succeed())
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: policies.MoveJobName(string(uid), "send")}, sender)).To(Succeed())
	}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	rs, ss := receiver.Spec.Template.Spec, sender.Spec.Template.Spec
	Expect(rs.Volumes[0].PersistentVolumeClaim.ClaimName).To(Equal(policies.MoveObjectName(string(uid))))
	Expect(rs.Containers[0].Command[2]).To(ContainSubstring("rsync --daemon"))
	Expect(ss.Volumes[0].PersistentVolumeClaim).To(Equal(&corev1.PersistentVolumeClaimVolumeSource{ClaimName: source.claim.Name, ReadOnly: true}))
	Expect(ss.Containers[0].Command[2]).To(ContainSubstring("--checksum --dry-run --itemize-changes"))
	var address string
	for _, e := range ss.Containers[0].Env {
		if e.Name == "RECEIVER_ADDRESS" {
			address = e.Value
		}
	}
	Expect(address).NotTo(BeEmpty())
	Expect(*sender.Spec.BackoffLimit).To(BeZero())
	senderPods := &corev1.PodList{}
	Eventually(func(g Gomega) {
		g.Expect(romeC.List(ctx, senderPods, client.InNamespace(ns), client.MatchingLabels{batchv1.JobNameLabel: sender.Name})).To(Succeed())
		g.Expect(senderPods.Items).NotTo(BeEmpty())
		g.Expect(senderPods.Items[0].Spec.NodeName).To(Equal("rome-worker-0"), "the sender runs where the data is")
	}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
}

// moveEventReasons are the reasons of the events on the VolumeMove.
func moveEventReasons(ctx context.Context, ns, name string) []string {
	evs := &eventsv1.EventList{}
	Expect(romeC.List(ctx, evs, client.InNamespace(ns))).To(Succeed())
	var reasons []string
	for _, e := range evs.Items {
		if e.Regarding.Kind == "VolumeMove" && e.Regarding.Name == name {
			reasons = append(reasons, e.Reason)
		}
	}
	GinkgoWriter.Printf("move events: %s\n", strings.Join(reasons, ", "))
	return reasons
}
