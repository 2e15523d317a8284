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

package foreigncluster

import (
	"context"
	"fmt"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

// keepDraining runs the peering's session while its virtual node still has
// pods to hand back. Only the virtual kubelet deletes an evicted pod's remote
// copy and then the local pod, so without a session the pods stay
// Terminating for ever: a manager restarted in the middle of an unpeer has
// none until this starts one. The session drains only: the peer is not
// offered for new offloading again. A running session is left as it is,
// whatever happened to the credentials since (Flux may prune them with the
// ForeignCluster). The error says why no session could be started: the pods
// and the node then stay, and the unpeer is retried.
func (r *ForeignClusterReconciler) keepDraining(ctx context.Context, fc *discoveryv1alpha1.ForeignCluster) error {
	if _, _, running := r.Runtime.Provider(fc.Name); running {
		return nil
	}
	provider, tenant, err := r.connectWithoutSession(ctx, fc)
	if err != nil {
		return err
	}
	offer, err := readRemoteOffer(ctx, provider, tenant)
	if err != nil {
		return fmt.Errorf("unpeering %s: no session runs to hand its pods back; reading the provider's offer to start one: %w", fc.Name, err)
	}
	peer := sessionPeer(fc, tenant, nodeSpec(fc, offer))
	peer.Draining = true
	_, err = r.Runtime.Ensure(ctx, peer)
	return err
}
