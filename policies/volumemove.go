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
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// The Ready reasons of a VolumeMove: the steps of a move, and why one cannot run.
const (
	MoveClaimNotFound      = "ClaimNotFound"
	MoveNotVirtualClaim    = "NotVirtualClaim"
	MoveClaimNotBound      = "ClaimNotBound"
	MoveTargetNodeNotFound = "TargetNodeNotFound"
	MoveTargetNotAPeer     = "TargetNodeNotAPeer"
	MoveTargetClassMissing = "TargetClassMissing"
	MoveClaimInUse         = "ClaimInUse"
	MoveCreatingTarget     = "CreatingTargetClaim"
	MoveTargetPending      = "TargetClaimPending"
	MoveCopying            = "Copying"
	MoveCopyFailed         = "CopyFailed"
	MoveRebinding          = "Rebinding"
	MoveMoved              = "Moved"
)

// VolumeMoveState is what the manager sees of a move's claim and target
// before each step.
type VolumeMoveState struct {
	// ClaimName and TargetNode are the VolumeMove's spec.
	ClaimName, TargetNode string
	// Claim is the claim to move; nil when it does not exist.
	Claim *corev1.PersistentVolumeClaim
	// Volume is the claim's volume; nil when it has none.
	Volume *corev1.PersistentVolume
	// Node is the target node; nil when it does not exist.
	Node *corev1.Node
	// PeerRunning is true when Node is a virtual node whose peering runs.
	PeerRunning bool
	// LocalClassExists is true when the class of local twins exists (the
	// manager's --storage-class, else a default class).
	LocalClassExists bool
	// MountedBy are the pods, other than the move's own, that mount the
	// claim and have not finished.
	MountedBy []string
}

// MoveCheck is the answer of VolumeMoveCheck: whether the move may take its
// next step, and if not, the Ready condition that says why.
type MoveCheck struct {
	// Proceed is true when the claim may be copied now.
	Proceed bool
	// Done is true when the claim's data is on the target node already.
	Done bool
	// Reason and Message are Ready's when the move does not proceed.
	Reason, Message string
	// Stalled is true when only a change in git can unblock the move.
	Stalled bool
}

// VolumeMoveCheck decides whether a claim can move now, a ladder of early
// returns, each with a message a person can act on. It is asked before
// every step, so a pod that starts mounting the claim mid-move stops it.
func VolumeMoveCheck(s VolumeMoveState) MoveCheck {
	claim := "PersistentVolumeClaim " + s.ClaimName
	if s.Claim != nil {
		claim = fmt.Sprintf("PersistentVolumeClaim %s/%s", s.Claim.Namespace, s.Claim.Name)
	}
	switch {
	case s.Claim == nil:
		return MoveCheck{Reason: MoveClaimNotFound, Message: fmt.Sprintf("%s (spec.claimName) does not exist in this namespace; the move starts when it does", claim)}
	case s.Claim.Spec.StorageClassName == nil || *s.Claim.Spec.StorageClassName != sharingv1alpha1.VirtualStorageClassName:
		return MoveCheck{Stalled: true, Reason: MoveNotVirtualClaim, Message: fmt.Sprintf(
			"%s is not of storage class %s: only claims Spillway binds can move; copy its data by hand, or use class %s for new claims",
			claim, sharingv1alpha1.VirtualStorageClassName, sharingv1alpha1.VirtualStorageClassName)}
	case s.Claim.Spec.VolumeName == "" || s.Volume == nil:
		return MoveCheck{Reason: MoveClaimNotBound, Message: fmt.Sprintf(
			"%s is not bound yet, so it holds no data: its first pod binds it where that pod runs; the move starts once it is bound", claim)}
	case s.Volume.Annotations[ProvisionedByAnnotation] != sharingv1alpha1.VirtualStorageProvisioner:
		return MoveCheck{Stalled: true, Reason: MoveNotVirtualClaim, Message: fmt.Sprintf(
			"%s is bound to volume %s, which Spillway did not provision: only claims Spillway binds can move", claim, s.Volume.Name)}
	case slices.Contains(VolumeNodes(s.Volume), s.TargetNode):
		return MoveCheck{Done: true, Reason: MoveMoved, Message: fmt.Sprintf("the data of %s is on node %s", claim, s.TargetNode)}
	case s.Node == nil:
		return MoveCheck{Reason: MoveTargetNodeNotFound, Message: fmt.Sprintf(
			"node %s (spec.nodeName) does not exist: name a node of this cluster or a peer's virtual node (kubectl get nodes)", s.TargetNode)}
	}
	virtual := s.Node.Labels[virtualkubeletv1alpha1.TypeLabel] == virtualkubeletv1alpha1.TypeVirtualNode
	switch {
	case virtual && (s.Node.Labels[virtualkubeletv1alpha1.RemoteClusterIDLabel] == "" || !s.PeerRunning):
		return MoveCheck{Reason: MoveTargetNotAPeer, Message: fmt.Sprintf(
			"node %s (spec.nodeName) is a virtual node but no running peering serves it: wait for its ForeignCluster to be Ready, or name another node", s.TargetNode)}
	case !virtual && !s.LocalClassExists:
		return MoveCheck{Reason: MoveTargetClassMissing, Message: fmt.Sprintf(
			"node %s is local, but the class of local volumes (the manager's --storage-class, else the default class) does not exist: create it, or name another node", s.TargetNode)}
	case len(s.MountedBy) > 0:
		return MoveCheck{Reason: MoveClaimInUse, Message: fmt.Sprintf(
			"%s is mounted by pod(s) %s: a volume moves only while no pod mounts it; stop them (scale the workload to 0) and the move starts by itself, nothing is copied or deleted until then",
			claim, strings.Join(s.MountedBy, ", "))}
	}
	return MoveCheck{Proceed: true}
}

// ValidateVolumeMove checks a VolumeMove's spec as the CLI and the manager
// read it (the CRD's patterns say the same at admission): both names must be
// DNS subdomains, as claim and node names are.
func ValidateVolumeMove(claimName, nodeName string) error {
	for _, f := range []struct{ field, value, example string }{
		{"spec.claimName", claimName, "data-db-0"}, {"spec.nodeName", nodeName, "liqo-milan"},
	} {
		if errs := validation.IsDNS1123Subdomain(f.value); len(errs) > 0 {
			return fmt.Errorf("%s %q: %s: use a claim or node name as kubectl prints it, such as %s", f.field, f.value, strings.Join(errs, "; "), f.example)
		}
	}
	return nil
}

// VolumeNodes are the nodes a volume's required node affinity names by
// hostname: where its data is, and so where its pods are scheduled.
func VolumeNodes(pv *corev1.PersistentVolume) []string {
	if pv == nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
		return nil
	}
	var nodes []string
	for _, term := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		for _, e := range term.MatchExpressions {
			if e.Key == corev1.LabelHostname && e.Operator == corev1.NodeSelectorOpIn {
				nodes = append(nodes, e.Values...)
			}
		}
	}
	return nodes
}

// PodsMountingClaim names the pods that mount the claim and have not
// finished, leaving out the move's own (labelled with its UID).
func PodsMountingClaim(pods []corev1.Pod, claim, moveUID string) []string {
	var names []string
	for i := range pods {
		p := &pods[i]
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.Labels[sharingv1alpha1.VolumeMoveLabel] == moveUID {
			continue
		}
		for _, v := range p.Spec.Volumes {
			if v.PersistentVolumeClaim != nil && v.PersistentVolumeClaim.ClaimName == claim {
				names = append(names, p.Name)
				break
			}
		}
	}
	slices.Sort(names)
	return names
}

// CopyStep is the next step of a move's copy, from the target claim and the
// two Jobs.
type CopyStep string

// The copy's steps, in order.
const (
	CopyRestart        CopyStep = "Restart"
	CopyCreateTarget   CopyStep = "CreateTarget"
	CopyWaitTarget     CopyStep = "WaitTarget"
	CopyCreateReceiver CopyStep = "CreateReceiver"
	CopyWaitReceiverIP CopyStep = "WaitReceiverAddress"
	CopyCreateSender   CopyStep = "CreateSender"
	CopyWaitJobs       CopyStep = "WaitJobs"
	CopyFailed         CopyStep = "Failed"
	CopyVerifiedRebind CopyStep = "Rebind"
)

// NextCopyStep decides the copy's next step toward node. The claim is
// rebound (and the source reclaimed) only when both Jobs completed: the
// sender exits 0 only after rsync --checksum found nothing left to copy, the
// receiver only after the sender said so. A target made for another node
// (spec.nodeName changed in git mid-copy) is given up and the copy restarts.
func NextCopyStep(node string, target *corev1.PersistentVolumeClaim, receiver, sender *batchv1.Job, receiverAddress string) CopyStep {
	switch {
	case target == nil:
		return CopyCreateTarget
	case target.Annotations[SelectedNodeAnnotation] != node:
		return CopyRestart
	case target.Status.Phase != corev1.ClaimBound:
		return CopyWaitTarget
	case receiver == nil:
		return CopyCreateReceiver
	case jobFailed(receiver) || (sender != nil && jobFailed(sender)):
		return CopyFailed
	case sender == nil && receiverAddress == "":
		return CopyWaitReceiverIP
	case sender == nil:
		return CopyCreateSender
	case jobComplete(receiver) && jobComplete(sender):
		return CopyVerifiedRebind
	}
	return CopyWaitJobs
}

func jobComplete(j *batchv1.Job) bool { return jobCondition(j, batchv1.JobComplete) }
func jobFailed(j *batchv1.Job) bool   { return jobCondition(j, batchv1.JobFailed) }

func jobCondition(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// movedClaim is what a moved claim is made again from: the claim without
// its identity and its binding.
type movedClaim struct {
	Labels          map[string]string                `json:"labels,omitempty"`
	Annotations     map[string]string                `json:"annotations,omitempty"`
	OwnerReferences []metav1.OwnerReference          `json:"ownerReferences,omitempty"`
	Spec            corev1.PersistentVolumeClaimSpec `json:"spec"`
}

// RecordMovedClaim is the MovedClaimAnnotation of a claim about to be
// deleted and made again bound to the target volume. The annotations the
// volume binding wrote (selected node, bind-completed, provisioner) are
// left out: they describe the old binding.
func RecordMovedClaim(pvc *corev1.PersistentVolumeClaim) (string, error) {
	m := movedClaim{Labels: pvc.Labels, OwnerReferences: pvc.OwnerReferences, Spec: *pvc.Spec.DeepCopy()}
	for k, v := range pvc.Annotations {
		if isBindingAnnotation(k) {
			continue
		}
		if m.Annotations == nil {
			m.Annotations = map[string]string{}
		}
		m.Annotations[k] = v
	}
	m.Spec.VolumeName = ""
	out, err := json.Marshal(m)
	return string(out), err
}

func isBindingAnnotation(k string) bool {
	return strings.HasPrefix(k, "pv.kubernetes.io/") || strings.HasPrefix(k, "volume.kubernetes.io/") ||
		strings.HasPrefix(k, "volume.beta.kubernetes.io/")
}

// ParseMovedClaim makes the moved claim namespace/name again from a target
// volume's MovedClaimAnnotation, bound to volumeName. Anyone who may write
// volumes can edit the annotation, so the claim's identity and binding come
// from the VolumeMove and the volume, never from it, and it must still be a
// claim of class liqo with valid labels and annotations.
func ParseMovedClaim(s, namespace, name, volumeName string) (*corev1.PersistentVolumeClaim, error) {
	var m movedClaim
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not the JSON of a claim: %w", sharingv1alpha1.MovedClaimAnnotation, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON object", sharingv1alpha1.MovedClaimAnnotation)
	}
	if m.Spec.StorageClassName == nil || *m.Spec.StorageClassName != sharingv1alpha1.VirtualStorageClassName {
		return nil, fmt.Errorf("%s: spec.storageClassName is not %s: only claims of that class are moved", sharingv1alpha1.MovedClaimAnnotation, sharingv1alpha1.VirtualStorageClassName)
	}
	for _, kv := range []map[string]string{m.Labels, m.Annotations} {
		for k := range kv {
			if errs := validation.IsQualifiedName(k); len(errs) > 0 {
				return nil, fmt.Errorf("%s: key %q: %s", sharingv1alpha1.MovedClaimAnnotation, k, strings.Join(errs, "; "))
			}
		}
	}
	for k, v := range m.Labels {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return nil, fmt.Errorf("%s: label %s value %q: %s", sharingv1alpha1.MovedClaimAnnotation, k, v, strings.Join(errs, "; "))
		}
	}
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: m.Labels, Annotations: m.Annotations, OwnerReferences: m.OwnerReferences},
		Spec:       m.Spec,
	}
	pvc.Spec.VolumeName = volumeName
	return pvc, nil
}
