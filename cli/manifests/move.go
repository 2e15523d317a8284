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

package manifests

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// VolumeMove is what `spillway move volume` writes into a cluster's folder.
type VolumeMove struct {
	Namespace, Claim, Node string
}

// VolumeMoveFile is the file of the move of namespace/claim.
func VolumeMoveFile(namespace, claim string) string {
	return "volumemove-" + namespace + "-" + claim + ".yaml"
}

// Object is the VolumeMove, named after its claim: one move per claim.
func (m VolumeMove) Object() *sharingv1alpha1.VolumeMove {
	return &sharingv1alpha1.VolumeMove{
		TypeMeta:   metav1.TypeMeta{APIVersion: sharingv1alpha1.GroupVersion.String(), Kind: "VolumeMove"},
		ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Claim},
		Spec:       sharingv1alpha1.VolumeMoveSpec{ClaimName: m.Claim, NodeName: m.Node},
	}
}

// File is the move's manifest file.
func (m VolumeMove) File() File {
	comment := fmt.Sprintf(`Written by "spillway move volume %s --namespace %s --node %s": the data of
the claim %s moves to node %s, copied by two rsync Jobs only while no pod
mounts the claim, and the source deleted only after the copy is verified.
kubectl get volumemoves -n %s shows where the move stands.`, m.Claim, m.Namespace, m.Node, m.Claim, m.Node, m.Namespace)
	return File{Name: VolumeMoveFile(m.Namespace, m.Claim), Documents: []Document{{Comment: comment, Object: m.Object()}}}
}
