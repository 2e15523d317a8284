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

package policies

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

type moveOpt func(*VolumeMoveState)

// moveState is a bound liqo claim on rome-worker, asked to move to
// liqo-milan, whose peering runs, mounted by no pod.
func moveState(opts ...moveOpt) VolumeMoveState {
	s := VolumeMoveState{
		ClaimName: "data", TargetNode: "liqo-milan",
		Claim: &corev1.PersistentVolumeClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data"},
			Spec:       corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("liqo"), VolumeName: "pvc-1"},
		},
		Volume:           volumeOn("rome-worker"),
		Node:             &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "liqo-milan", Labels: virtualkubeletv1alpha1.VirtualNodeLabels("liqo-milan", "milan-id", nil)}},
		PeerRunning:      true,
		LocalClassExists: true,
	}
	for _, o := range opts {
		o(&s)
	}
	return s
}

func volumeOn(node string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-1", Annotations: map[string]string{ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner}},
		Spec: corev1.PersistentVolumeSpec{NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
		}}}}},
	}
}

func toLocalNode(s *VolumeMoveState) {
	s.TargetNode = "rome-worker-2"
	s.Node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-worker-2"}}
}

func TestVolumeMoveCheck(t *testing.T) {
	cases := []struct {
		name    string
		state   VolumeMoveState
		reason  string
		stalled bool
		proceed bool
		done    bool
		mention string
	}{
		{name: "a detached bound claim moves", state: moveState(), proceed: true},
		{name: "to a local node too", state: moveState(toLocalNode), proceed: true},
		{name: "no claim", state: moveState(func(s *VolumeMoveState) { s.Claim, s.Volume = nil, nil }), reason: MoveClaimNotFound, mention: "spec.claimName"},
		{name: "another class", state: moveState(func(s *VolumeMoveState) { s.Claim.Spec.StorageClassName = ptr.To("local-path") }),
			reason: MoveNotVirtualClaim, stalled: true, mention: "class liqo"},
		{name: "no class", state: moveState(func(s *VolumeMoveState) { s.Claim.Spec.StorageClassName = nil }), reason: MoveNotVirtualClaim, stalled: true},
		{name: "not bound", state: moveState(func(s *VolumeMoveState) { s.Claim.Spec.VolumeName, s.Volume = "", nil }), reason: MoveClaimNotBound, mention: "first pod"},
		{name: "a volume Spillway did not make", state: moveState(func(s *VolumeMoveState) { s.Volume.Annotations = nil }),
			reason: MoveNotVirtualClaim, stalled: true, mention: "pvc-1"},
		{name: "already there", state: moveState(func(s *VolumeMoveState) { s.Volume = volumeOn("liqo-milan") }), done: true, reason: MoveMoved},
		{name: "already there even while mounted", state: moveState(func(s *VolumeMoveState) {
			s.Volume, s.MountedBy = volumeOn("liqo-milan"), []string{"db-0"}
		}), done: true, reason: MoveMoved},
		{name: "no such node", state: moveState(func(s *VolumeMoveState) { s.Node = nil }), reason: MoveTargetNodeNotFound, mention: "spec.nodeName"},
		{name: "a virtual node without its peering", state: moveState(func(s *VolumeMoveState) { s.PeerRunning = false }), reason: MoveTargetNotAPeer, mention: "ForeignCluster"},
		{name: "a virtual node without a cluster ID", state: moveState(func(s *VolumeMoveState) {
			delete(s.Node.Labels, virtualkubeletv1alpha1.RemoteClusterIDLabel)
		}), reason: MoveTargetNotAPeer},
		{name: "a local node without the local class", state: moveState(toLocalNode, func(s *VolumeMoveState) { s.LocalClassExists = false }),
			reason: MoveTargetClassMissing, mention: "--storage-class"},
		{name: "the local class does not matter for a peer", state: moveState(func(s *VolumeMoveState) { s.LocalClassExists = false }), proceed: true},
		{name: "in use", state: moveState(func(s *VolumeMoveState) { s.MountedBy = []string{"db-0", "db-1"} }), reason: MoveClaimInUse, mention: "db-0, db-1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got := VolumeMoveCheck(tc.state)
			g.Expect(got.Proceed).To(Equal(tc.proceed))
			g.Expect(got.Done).To(Equal(tc.done))
			g.Expect(got.Reason).To(Equal(tc.reason))
			g.Expect(got.Stalled).To(Equal(tc.stalled))
			g.Expect(got.Message).To(ContainSubstring(tc.mention))
			if !tc.proceed {
				g.Expect(got.Message).NotTo(BeEmpty())
			}
		})
	}
}

func TestPodsMountingClaim(t *testing.T) {
	pod := func(name string, phase corev1.PodPhase, claim string, labels map[string]string) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
			Spec: corev1.PodSpec{Volumes: []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}},
			Status: corev1.PodStatus{Phase: phase}}
	}
	pods := []corev1.Pod{
		pod("running", corev1.PodRunning, "data", nil),
		pod("pending", corev1.PodPending, "data", nil),
		pod("done", corev1.PodSucceeded, "data", nil),
		pod("failed", corev1.PodFailed, "data", nil),
		pod("other-claim", corev1.PodRunning, "logs", nil),
		pod("mover", corev1.PodRunning, "data", map[string]string{sharingv1alpha1.VolumeMoveLabel: "m1"}),
		pod("another-move", corev1.PodRunning, "data", map[string]string{sharingv1alpha1.VolumeMoveLabel: "m2"}),
		{ObjectMeta: metav1.ObjectMeta{Name: "no-volumes"}},
	}
	NewWithT(t).Expect(PodsMountingClaim(pods, "data", "m1")).To(Equal([]string{"another-move", "pending", "running"}))
}

func TestNextCopyStep(t *testing.T) {
	at := metav1.ObjectMeta{Annotations: map[string]string{SelectedNodeAnnotation: "liqo-milan"}}
	bound := &corev1.PersistentVolumeClaim{ObjectMeta: at, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	pending := &corev1.PersistentVolumeClaim{ObjectMeta: at, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}
	elsewhere := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{SelectedNodeAnnotation: "liqo-naples"}},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}
	job := func(cond batchv1.JobConditionType) *batchv1.Job {
		j := &batchv1.Job{}
		if cond != "" {
			j.Status.Conditions = []batchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
		}
		return j
	}
	running, complete, failed := job(""), job(batchv1.JobComplete), job(batchv1.JobFailed)
	cases := []struct {
		name             string
		target           *corev1.PersistentVolumeClaim
		receiver, sender *batchv1.Job
		address          string
		want             CopyStep
	}{
		{"no target yet", nil, nil, nil, "", CopyCreateTarget},
		{"a target for another node", elsewhere, running, running, "10.0.0.7", CopyRestart},
		{"target pending", pending, nil, nil, "", CopyWaitTarget},
		{"target bound", bound, nil, nil, "", CopyCreateReceiver},
		{"receiver without an address", bound, running, nil, "", CopyWaitReceiverIP},
		{"receiver with an address", bound, running, nil, "10.0.0.7", CopyCreateSender},
		{"both running", bound, running, running, "10.0.0.7", CopyWaitJobs},
		{"sender done, receiver not yet", bound, running, complete, "10.0.0.7", CopyWaitJobs},
		{"receiver done, sender not yet", bound, complete, running, "10.0.0.7", CopyWaitJobs},
		{"sender failed", bound, running, failed, "10.0.0.7", CopyFailed},
		{"receiver failed before the sender", bound, failed, nil, "", CopyFailed},
		{"receiver failed after the sender", bound, failed, complete, "10.0.0.7", CopyFailed},
		{"both complete", bound, complete, complete, "", CopyVerifiedRebind},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(NextCopyStep("liqo-milan", tc.target, tc.receiver, tc.sender, tc.address)).To(Equal(tc.want))
		})
	}
}

func TestMovedClaimRoundTrip(t *testing.T) {
	g := NewWithT(t)
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data", UID: "old-uid", ResourceVersion: "7",
			Labels: map[string]string{"app": "db", "kustomize.toolkit.fluxcd.io/name": "apps"},
			Annotations: map[string]string{SelectedNodeAnnotation: "rome-worker", "pv.kubernetes.io/bind-completed": "yes",
				"volume.beta.kubernetes.io/storage-provisioner": "x", "team": "payments"}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("liqo"), VolumeName: "pvc-old",
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}},
	}
	rec, err := RecordMovedClaim(pvc)
	g.Expect(err).NotTo(HaveOccurred())
	got, err := ParseMovedClaim(rec, "shop", "data", "pvc-new")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.UID).To(BeEmpty())
	g.Expect(got.ResourceVersion).To(BeEmpty())
	g.Expect(got.Labels).To(Equal(pvc.Labels))
	g.Expect(got.Annotations).To(Equal(map[string]string{"team": "payments"}))
	g.Expect(got.Spec.VolumeName).To(Equal("pvc-new"))
	g.Expect(got.Spec.AccessModes).To(Equal(pvc.Spec.AccessModes))
	g.Expect(pvc.Spec.VolumeName).To(Equal("pvc-old"), "the claim recorded is left as it was")
}

func TestParseMovedClaimRefuses(t *testing.T) {
	for name, s := range map[string]string{
		"not JSON":         `{`,
		"unknown field":    `{"spec":{"storageClassName":"liqo"},"status":{}}`,
		"another class":    `{"spec":{"storageClassName":"local-path"}}`,
		"no class":         `{"spec":{}}`,
		"bad label key":    `{"labels":{"a b":"c"},"spec":{"storageClassName":"liqo"}}`,
		"bad label value":  `{"labels":{"a":"b c"},"spec":{"storageClassName":"liqo"}}`,
		"bad annotation":   `{"annotations":{"/x":"y"},"spec":{"storageClassName":"liqo"}}`,
		"trailing garbage": `{"spec":{"storageClassName":"liqo"}} {}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ParseMovedClaim(s, "shop", "data", "pvc-new")
			NewWithT(t).Expect(err).To(MatchError(ContainSubstring(sharingv1alpha1.MovedClaimAnnotation)))
		})
	}
}

func TestValidateVolumeMove(t *testing.T) {
	g := NewWithT(t)
	g.Expect(ValidateVolumeMove("data-db-0", "liqo-milan")).To(Succeed())
	g.Expect(ValidateVolumeMove("Data", "liqo-milan")).To(MatchError(ContainSubstring("spec.claimName")))
	g.Expect(ValidateVolumeMove("data", "")).To(MatchError(ContainSubstring("spec.nodeName")))
	g.Expect(ValidateVolumeMove("data", strings.Repeat("a", 254))).To(MatchError(ContainSubstring("spec.nodeName")))
}

func TestMoveJobs(t *testing.T) {
	g := NewWithT(t)
	c := MoveCopy{Namespace: "shop", MoveUID: "u1", Image: "rsync:1", SourceClaim: "data", TargetClaim: "move-u1", ReceiverAddress: "10.0.0.7",
		Owner: metav1.OwnerReference{APIVersion: "sharing.liqo.io/v1alpha1", Kind: "VolumeMove", Name: "data", UID: "u1"}}
	recv, send := ReceiverJob(c), SenderJob(c)
	g.Expect(recv.Name).To(Equal("move-u1-receive"))
	g.Expect(send.Name).To(Equal("move-u1-send"))
	for _, j := range []*batchv1.Job{recv, send} {
		g.Expect(*j.Spec.BackoffLimit).To(BeZero(), "a failed copy is not retried")
		g.Expect(j.OwnerReferences).To(ConsistOf(c.Owner))
		g.Expect(j.Spec.Template.Labels).To(HaveKeyWithValue(sharingv1alpha1.VolumeMoveLabel, "u1"))
		g.Expect(validation.IsDNS1123Label(j.Name)).To(BeEmpty())
	}
	g.Expect(recv.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName).To(Equal("move-u1"))
	g.Expect(recv.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ReadOnly).To(BeFalse())
	g.Expect(send.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ClaimName).To(Equal("data"))
	g.Expect(send.Spec.Template.Spec.Volumes[0].PersistentVolumeClaim.ReadOnly).To(BeTrue(), "the sender never writes the source")
	script := send.Spec.Template.Spec.Containers[0].Command[2]
	g.Expect(script).To(ContainSubstring("--checksum --dry-run --itemize-changes"), "the sender verifies before it reports success")
	g.Expect(strings.Index(script, "--dry-run")).To(BeNumerically("<", strings.Index(script, ".spillway-move-verified")),
		"the marker is pushed only after the verification")
	g.Expect(send.Spec.Template.Spec.Containers[0].Env).To(ContainElement(corev1.EnvVar{Name: "RECEIVER_ADDRESS", Value: "10.0.0.7"}))
}

func FuzzParseMovedClaim(f *testing.F) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "db"}},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To("liqo")}}
	rec, _ := RecordMovedClaim(pvc)
	for _, s := range []string{rec, `{}`, `{"spec":{"storageClassName":"liqo","volumeName":"stolen"}}`, `{"labels":{"":""}}`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseMovedClaim(s, "shop", "data", "pvc-new")
		if err != nil {
			return
		}
		if got.Namespace != "shop" || got.Name != "data" || got.Spec.VolumeName != "pvc-new" {
			t.Fatalf("the annotation chose the claim's identity or binding: %s/%s -> %s", got.Namespace, got.Name, got.Spec.VolumeName)
		}
		if got.Spec.StorageClassName == nil || *got.Spec.StorageClassName != "liqo" {
			t.Fatalf("accepted a claim of another class")
		}
		for k, v := range got.Labels {
			if len(validation.IsQualifiedName(k)) > 0 || len(validation.IsValidLabelValue(v)) > 0 {
				t.Fatalf("accepted the label %q=%q", k, v)
			}
		}
	})
}

func FuzzValidateVolumeMove(f *testing.F) {
	f.Add("data", "liqo-milan")
	f.Add("", "x")
	f.Add("a.b", "-bad")
	f.Fuzz(func(t *testing.T, claim, node string) {
		if ValidateVolumeMove(claim, node) != nil {
			return
		}
		if len(validation.IsDNS1123Subdomain(claim)) > 0 || len(validation.IsDNS1123Subdomain(node)) > 0 {
			t.Fatalf("accepted %q, %q", claim, node)
		}
	})
}
