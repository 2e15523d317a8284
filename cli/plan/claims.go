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

package plan

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// StrandedClaim means a change deletes, on a peer, the twin namespace that
// holds the data of a claim of the virtual storage class, or of a claim of
// another class reflected there (externally managed storage): the seed warns
// that unoffloading deletes remote volumes. Always rejected.
const StrandedClaim ChangeKind = "StrandedClaim"

// strandedClaims rejects the change when a live view of this cluster shows
// claims of namespace ns whose data lives on one of the peers the namespace
// leaves. Without a live view of this cluster nothing is checked here: the
// Unoffload or Move change already says the namespace is deleted there.
func (d *diff) strandedClaims(ns string, leaving []string, peers []peer) {
	live := d.opts.Live
	if live == nil || live.Cluster != d.h.Name || live.Reader == nil || len(leaving) == 0 {
		return
	}
	left := map[string]string{} // cluster ID → peer name
	for _, p := range peers {
		for _, name := range leaving {
			if p.Name == name {
				left[p.ClusterID] = p.Name
			}
		}
	}
	out, err := live.remoteClaims(d.ctx, ns, left)
	if err != nil {
		d.add(Change{Kind: StrandedClaim, Namespace: ns, Rejected: true, Message: fmt.Sprintf(
			"claims not checked (%v): a claim (of class %s, or reflected to a provider) whose data lives on %v would be deleted with the namespace there; fix the access and plan again",
			err, sharingv1alpha1.VirtualStorageClassName, leaving)})
		return
	}
	d.changes = append(d.changes, out...)
}

// remoteClaims lists the claims of ns bound to a virtual volume whose twin
// claim is on one of the clusters (cluster ID → name).
func (l *Live) remoteClaims(ctx context.Context, ns string, clusters map[string]string) ([]Change, error) {
	var claims corev1.PersistentVolumeClaimList
	if err := l.Reader.List(ctx, &claims, client.InNamespace(ns)); err != nil {
		return nil, fmt.Errorf("listing claims in %s: %w", ns, err)
	}
	sort.Slice(claims.Items, func(i, j int) bool { return claims.Items[i].Name < claims.Items[j].Name })
	var out []Change
	for _, c := range claims.Items {
		if c.Spec.VolumeName == "" {
			continue
		}
		pv := &corev1.PersistentVolume{}
		if err := l.Reader.Get(ctx, client.ObjectKey{Name: c.Spec.VolumeName}, pv); apierrors.IsNotFound(err) {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("reading volume %s of claim %s/%s: %w", c.Spec.VolumeName, ns, c.Name, err)
		}
		if pv.Annotations[policies.ProvisionedByAnnotation] != sharingv1alpha1.VirtualStorageProvisioner {
			continue
		}
		twin, err := policies.ParseTwinClaim(pv.Annotations[sharingv1alpha1.TwinClaimAnnotation])
		if err != nil || !twin.Remote() {
			continue
		}
		peer, leaving := clusters[twin.ClusterID]
		if !leaving {
			continue
		}
		out = append(out, Change{Kind: StrandedClaim, Namespace: ns, Rejected: true, Message: fmt.Sprintf(
			"claim %s keeps its data on %s (twin claim %s/%s): the change deletes the namespace there and the data with it; "+
				"keep %s offloaded to %s until the claim is deleted on purpose (moving a volume between clusters is not built yet)",
			c.Name, peer, twin.Namespace, twin.Name, ns, peer)})
	}
	return out, nil
}
