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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// The copy of a move is rsync between two Jobs of the claim's namespace:
// the receiver mounts the target claim (so it runs where the target is,
// offloaded through the virtual node when that is a peer's) and serves it
// with an rsync daemon; the sender mounts the moved claim (so it runs where
// the data is) and pushes to the receiver's pod address over the fabric.
// Both are ordinary pods, so a provider holds the receiver to its pod
// policy as it holds every offloaded pod.
const (
	// MoveRsyncPort is the receiver's rsync daemon port.
	MoveRsyncPort = 8873
	// MovePasswordKey is the key of the move's Secret that both Jobs share:
	// the receiver accepts writes only from who knows it.
	MovePasswordKey = "password"
	// MoveCopyDeadlineSeconds bounds each Job; a receiver whose sender never
	// comes fails then, and so does the move (the source is kept).
	MoveCopyDeadlineSeconds = 6 * 60 * 60
)

// receiverScript serves /data with an rsync daemon that takes writes from
// the user "mover" with the move's password, until the sender's marker says
// the copy is verified.
const receiverScript = `set -eu
umask 077
printf 'mover:%s\n' "$RSYNC_PASSWORD" > /tmp/rsyncd.secrets
printf '%s\n' 'pid file = /tmp/rsyncd.pid' 'use chroot = no' '[data]' 'path = /data' 'read only = no' \
  'auth users = mover' 'secrets file = /tmp/rsyncd.secrets' > /tmp/rsyncd.conf
rsync --daemon --no-detach --port=8873 --config=/tmp/rsyncd.conf &
until [ -f /data/.spillway-move-verified ]; do sleep 2; done
rm -f /data/.spillway-move-verified
kill $!
`

// senderScript copies /data to the receiver, then verifies: a second pass
// with --checksum (every file's content compared, not its size and time)
// must find nothing left to copy. Only then it pushes the marker.
const senderScript = `set -eu
dest="rsync://mover@${RECEIVER_ADDRESS}:8873/data/"
rsync -a --delete --checksum /data/ "$dest"
left="$(rsync -a --delete --checksum --dry-run --itemize-changes /data/ "$dest")"
if [ -n "$left" ]; then echo "verification failed, these still differ:"; echo "$left"; exit 1; fi
: > /tmp/.spillway-move-verified
rsync /tmp/.spillway-move-verified "$dest"
`

// MoveCopy names what the two Jobs of a move use.
type MoveCopy struct {
	Namespace string
	// Owner is the VolumeMove: deleting it deletes the Jobs, the Secret and
	// the target claim (so a move given up leaves nothing behind).
	Owner metav1.OwnerReference
	// MoveUID labels everything the move makes.
	MoveUID string
	// Image runs rsync in both Jobs.
	Image string
	// SourceClaim is the moved claim, TargetClaim the claim at the target.
	SourceClaim, TargetClaim string
	// ReceiverAddress is the receiver pod's IP (the sender only).
	ReceiverAddress string
}

// MoveObjectName is the name of the target claim and the Secret of the
// move with this UID.
func MoveObjectName(moveUID string) string { return "move-" + moveUID }

// MoveJobName names a move's receiver ("receive") or sender ("send") Job.
func MoveJobName(moveUID, role string) string { return "move-" + moveUID + "-" + role }

// ReceiverJob is the Job that receives the data into the target claim.
func ReceiverJob(c MoveCopy) *batchv1.Job {
	j := moveJob(c, "receive", c.TargetClaim, false, receiverScript)
	j.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "rsync", ContainerPort: MoveRsyncPort}}
	return j
}

// SenderJob is the Job that sends the moved claim's data, read-only, to
// the receiver at c.ReceiverAddress.
func SenderJob(c MoveCopy) *batchv1.Job {
	j := moveJob(c, "send", c.SourceClaim, true, senderScript)
	ctr := &j.Spec.Template.Spec.Containers[0]
	ctr.Env = append(ctr.Env, corev1.EnvVar{Name: "RECEIVER_ADDRESS", Value: c.ReceiverAddress})
	return j
}

func moveJob(c MoveCopy, role, claim string, readOnly bool, script string) *batchv1.Job {
	labels := map[string]string{sharingv1alpha1.VolumeMoveLabel: c.MoveUID}
	password := corev1.EnvVar{Name: "RSYNC_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: MoveObjectName(c.MoveUID)}, Key: MovePasswordKey}}}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: c.Namespace, Name: MoveJobName(c.MoveUID, role), Labels: labels,
			OwnerReferences: []metav1.OwnerReference{c.Owner}},
		Spec: batchv1.JobSpec{
			// One try: a failed copy is reported, not retried over a half-written target.
			BackoffLimit:          ptr.To[int32](0),
			ActiveDeadlineSeconds: ptr.To[int64](MoveCopyDeadlineSeconds),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name: "rsync", Image: c.Image, Command: []string{"/bin/sh", "-c", script},
						Env:          []corev1.EnvVar{password},
						VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data", ReadOnly: readOnly}},
					}},
					Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
						PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: readOnly}}}},
				},
			},
		},
	}
}
