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

package pod

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/policies"
)

// nameTwinClaims points the claim volumes of a ShadowPod's spec at the
// twins of the local claims on this provider (policies.TwinClaimNameOn): a
// claim moved to the provider by a VolumeMove is bound to a twin made under
// the move's own name. Other volumes, and claims without such a twin, keep
// their names, as the seed sends them. Reads go through LocalPods (the
// manager's cache); without it names are kept.
func (h *Handler) nameTwinClaims(ctx context.Context, namespace, remoteNamespace string, spec *corev1.PodSpec) error {
	if h.LocalPods == nil {
		return nil
	}
	for i := range spec.Volumes {
		src := spec.Volumes[i].PersistentVolumeClaim
		if src == nil {
			continue
		}
		pvc := &corev1.PersistentVolumeClaim{}
		err := h.LocalPods.Get(ctx, client.ObjectKey{Namespace: namespace, Name: src.ClaimName}, pvc)
		if apierrors.IsNotFound(err) || (err == nil && pvc.Spec.VolumeName == "") {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading claim %s/%s of an offloaded pod: %w", namespace, src.ClaimName, err)
		}
		pv := &corev1.PersistentVolume{}
		err = h.LocalPods.Get(ctx, client.ObjectKey{Name: pvc.Spec.VolumeName}, pv)
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("reading volume %s of claim %s/%s: %w", pvc.Spec.VolumeName, namespace, src.ClaimName, err)
		}
		if name, ok := policies.TwinClaimNameOn(pv, h.RemoteID, remoteNamespace); ok {
			src.ClaimName = name
		}
	}
	return nil
}
