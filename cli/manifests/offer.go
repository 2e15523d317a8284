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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// GPUResource is the resource --gpu sets.
const GPUResource corev1.ResourceName = "nvidia.com/gpu"

// Offer is what `spillway generate offer` writes into the provider's folder.
type Offer struct {
	// Provider is the cluster whose folder is written.
	Provider string
	// Consumer names the consumer; ClusterID is its cluster ID.
	Consumer  string
	ClusterID string
	// Limits is a fixed offer; SharingPercentage a proportional one. At most
	// one is set; neither means the default percentage.
	Limits            corev1.ResourceList
	SharingPercentage *int32
	Labels            map[string]string
	// Broker resells the provider's own providers (spec.broker); it goes
	// with a percentage, never with Limits.
	Broker bool
	// ExposedLabelKeys are the label keys a broker derives from its
	// providers' virtual nodes (spec.exposedLabelKeys); only with Broker.
	ExposedLabelKeys []string
}

// ResourceOfferFile and PushSecretFile are the files generate offer writes.
func ResourceOfferFile(consumer string) string { return "resourceoffer-" + consumer + ".yaml" }

// PushSecretFile is the file holding the PushSecret of the consumer's identity.
func PushSecretFile(consumer string) string { return "pushsecret-" + consumer + ".yaml" }

// ResourceOffer is the offer to the consumer.
func (o Offer) ResourceOffer() *sharingv1alpha1.ResourceOffer {
	ro := &sharingv1alpha1.ResourceOffer{
		TypeMeta:   metav1.TypeMeta{APIVersion: sharingv1alpha1.GroupVersion.String(), Kind: "ResourceOffer"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Consumer, Namespace: discoveryv1alpha1.DefaultCredentialsNamespace},
		Spec: sharingv1alpha1.ResourceOfferSpec{
			ClusterID:         o.ClusterID,
			ClusterName:       o.Consumer,
			SharingPercentage: o.SharingPercentage,
			Labels:            o.Labels,
			Broker:            o.Broker,
			ExposedLabelKeys:  o.ExposedLabelKeys,
		},
	}
	if len(o.Limits) > 0 {
		ro.Spec.Resources = &sharingv1alpha1.OfferedResources{Limits: o.Limits}
	}
	return ro
}

func (o Offer) describe() string {
	switch {
	case len(o.Limits) > 0:
		var parts []string
		for name, q := range o.Limits {
			parts = append(parts, fmt.Sprintf("%s %s", name, q.String()))
		}
		sort.Strings(parts)
		return "a fixed " + strings.Join(parts, ", ")
	case o.SharingPercentage != nil:
		return fmt.Sprintf("%d %% of its free allocatable resources, recomputed as its load changes", *o.SharingPercentage)
	}
	return fmt.Sprintf("%d %% (the default) of its free allocatable resources, recomputed as its load changes", sharingv1alpha1.DefaultSharingPercentage)
}

// Files are the ResourceOffer and the PushSecret that hands the consumer's
// credentials to the secret store.
func (o Offer) Files() []File {
	secret := sharingv1alpha1.IdentitySecretName(o.Consumer, o.ClusterID)
	// 1m0s, not 1m: External Secrets rewrites the whole object when it adds
	// its finalizer, in Go's spelling of the duration, and Flux would see
	// "1m" in git against "1m0s" live as drift.
	ps := newUnstructured(PushSecretAPIVersion, "PushSecret", discoveryv1alpha1.DefaultCredentialsNamespace, "identity-"+o.Consumer, map[string]any{
		"refreshInterval": "1m0s",
		"updatePolicy":    "Replace",
		"deletionPolicy":  "Delete",
		"secretStoreRefs": []any{map[string]any{"kind": SecretStoreKind, "name": SecretStoreName}},
		"selector":        map[string]any{"secret": map[string]any{"name": secret}},
		"data":            identityPushes(IdentityKey(o.Provider, o.Consumer)),
	})
	comment := fmt.Sprintf(`Written by "spillway generate offer %s": what %s lends to %s,
%s.`, o.Consumer, o.Provider, o.Consumer, o.describe())
	if len(o.Labels) > 0 {
		comment += "\nspec.labels are copied onto " + o.Consumer + "'s virtual node, for cluster selectors."
	}
	if len(o.ExposedLabelKeys) > 0 {
		comment += "\nspec.exposedLabelKeys are copied onto " + o.Consumer + "'s virtual node with the value " + o.Provider + "'s providers agree on;\na key they disagree on is left out (condition ExposedLabelConflict)."
	}
	return []File{
		{Name: ResourceOfferFile(o.Consumer), Documents: []Document{{Comment: comment, Object: o.ResourceOffer()}}},
		{Name: PushSecretFile(o.Consumer), Documents: []Document{{
			Comment: fmt.Sprintf(`Copies the credentials %s's controller issues to %s (the Secret %s)
to the secret store, each key as one property of %s, where
%s's ExternalSecret picks them up. Withdrawing the offer removes them from
the store too.`, o.Provider, o.Consumer, secret, IdentityKey(o.Provider, o.Consumer), o.Consumer),
			Object: ps,
		}}},
	}
}

// identityPushes pushes each key of the identity Secret as one property of
// the store key, in sharingv1alpha1.IdentityKeys order. Pushed whole (no
// property), the identity could not be withdrawn from every store: External
// Secrets' Kubernetes provider deletes only properties ("requires property
// in RemoteRef to delete secret value") and left the PushSecret terminating.
// Property by property, it deletes the store's Secret with the last one.
func identityPushes(storeKey string) []any {
	var data []any
	for _, key := range sharingv1alpha1.IdentityKeys() {
		data = append(data, map[string]any{"match": map[string]any{
			"secretKey": key,
			"remoteRef": map[string]any{"remoteKey": storeKey, "property": key},
		}})
	}
	return data
}
