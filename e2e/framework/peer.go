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

package framework

import (
	"context"
	"fmt"
	"path/filepath"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// Install applies Spillway's CRDs and the liqo namespace on c and starts its
// manager as id, for suites whose clusters have no folder in clusters/.
func Install(ctx context.Context, root string, c *lab.Cluster, id Identity) error {
	if err := ApplyDir(ctx, c, filepath.Join(root, "kustomize/crd")); err != nil {
		return err
	}
	if err := Apply(ctx, c, []*unstructured.Unstructured{Namespace("liqo")}); err != nil {
		return err
	}
	return StartManager(ctx, c, id)
}

// InstallAll is Install on every cluster of ids, the clusters together: each
// mostly waits (CRDs established, its manager Ready), and one after the
// other a suite's setup paid every wait.
func InstallAll(ctx context.Context, root string, ids map[*lab.Cluster]Identity) error {
	eg, ectx := errgroup.WithContext(ctx)
	for c, id := range ids {
		eg.Go(func() error { return Install(ectx, root, c, id) })
	}
	return eg.Wait()
}

// Peer makes consumer consume provider with the manifests `spillway generate
// offer` and `spillway peer` write: on the provider the ResourceOffer (labels
// copied onto the virtual node) and the PushSecret of the consumer's identity,
// on the consumer the ForeignCluster and the ExternalSecret that fetches it.
// External Secrets carries the identity through the lab's store. It returns
// once the virtual node is Ready.
func Peer(ctx context.Context, consumer *lab.Cluster, consumerID Identity, provider *lab.Cluster, providerID Identity, labels map[string]string) error {
	return PeerWithOffer(ctx, consumer, consumerID, provider, providerID, manifests.Offer{Labels: labels})
}

// PeerWithOffer is Peer with the offer's terms (limits, percentage, broker
// mode) given; its provider, consumer and cluster ID are filled in.
func PeerWithOffer(ctx context.Context, consumer *lab.Cluster, consumerID Identity, provider *lab.Cluster, providerID Identity, offer manifests.Offer) error {
	if err := EnsureExternalSecrets(ctx, consumer, provider); err != nil {
		return err
	}
	offer.Provider, offer.Consumer, offer.ClusterID = providerID.ClusterName, consumerID.ClusterName, consumerID.ClusterID
	if err := ApplyFiles(ctx, provider, offer.Files()); err != nil {
		return fmt.Errorf("offering %s to %s: %w", provider.Name, consumer.Name, err)
	}
	if err := WaitForStoreKey(ctx, consumer, manifests.IdentityKey(providerID.ClusterName, consumerID.ClusterName)); err != nil {
		return fmt.Errorf("waiting for %s's PushSecret to hand %s's identity to the store: %w", provider.Name, consumer.Name, err)
	}
	peering := manifests.Peering{Consumer: consumerID.ClusterName, Provider: providerID.ClusterName, ClusterID: providerID.ClusterID,
		CredentialsSecret: providerID.ClusterName + "-credentials"}
	if err := ApplyFiles(ctx, consumer, peering.Files()); err != nil {
		return fmt.Errorf("peering %s with %s: %w", consumer.Name, provider.Name, err)
	}
	consumerC, err := Client(consumer)
	if err != nil {
		return err
	}
	node := virtualkubeletv1alpha1.VirtualNodeName(providerID.ClusterName)
	return Poll(ctx, func(ctx context.Context) error { return NodeReady(ctx, consumerC, node) })
}

// ApplyFiles applies the objects of manifest files the CLI generates.
func ApplyFiles(ctx context.Context, c *lab.Cluster, files []manifests.File) error {
	var objs []*unstructured.Unstructured
	for _, o := range manifests.Objects(files...) {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: m}
		unstructured.RemoveNestedField(u.Object, "status")
		unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
		objs = append(objs, u)
	}
	return Apply(ctx, c, objs)
}
