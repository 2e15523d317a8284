package framework

import (
	"context"
	"fmt"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
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

// Peer makes consumer consume provider as a committed pair of manifests
// would: the provider's ResourceOffer (labels copied onto the virtual node),
// the consumer's identity Secret carried across (the lab's stand-in for the
// PushSecret / ExternalSecret pair), and the consumer's ForeignCluster. It
// returns once the virtual node is Ready.
func Peer(ctx context.Context, consumer *lab.Cluster, consumerID Identity, provider *lab.Cluster, providerID Identity, labels map[string]string) error {
	consumerC, err := Client(consumer)
	if err != nil {
		return err
	}
	providerC, err := Client(provider)
	if err != nil {
		return err
	}
	offer := &sharingv1alpha1.ResourceOffer{ObjectMeta: metav1.ObjectMeta{Name: consumerID.ClusterName, Namespace: "liqo"},
		Spec: sharingv1alpha1.ResourceOfferSpec{ClusterID: consumerID.ClusterID, ClusterName: consumerID.ClusterName, Labels: labels}}
	if err := client.IgnoreAlreadyExists(providerC.Create(ctx, offer)); err != nil {
		return fmt.Errorf("offering %s to %s: %w", provider.Name, consumer.Name, err)
	}
	credentials := providerID.ClusterName + "-credentials"
	identity := client.ObjectKey{Namespace: "liqo", Name: sharingv1alpha1.IdentitySecretName(consumerID.ClusterName, "")}
	if err := Poll(ctx, func(ctx context.Context) error {
		return CopySecret(ctx, providerC, identity, consumerC, client.ObjectKey{Namespace: "liqo", Name: credentials})
	}); err != nil {
		return fmt.Errorf("carrying %s's identity for %s: %w", provider.Name, consumer.Name, err)
	}
	fc := &discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: providerID.ClusterName},
		Spec: discoveryv1alpha1.ForeignClusterSpec{
			ClusterIdentity:        discoveryv1alpha1.ClusterIdentity{ClusterID: providerID.ClusterID, ClusterName: providerID.ClusterName},
			OutgoingPeeringEnabled: discoveryv1alpha1.PeeringEnabledYes, IncomingPeeringEnabled: discoveryv1alpha1.PeeringEnabledNo,
			CredentialsSecretRef: &discoveryv1alpha1.SecretReference{Name: credentials, Namespace: "liqo"},
		}}
	if err := client.IgnoreAlreadyExists(consumerC.Create(ctx, fc)); err != nil {
		return fmt.Errorf("peering %s with %s: %w", consumer.Name, provider.Name, err)
	}
	node := virtualkubeletv1alpha1.VirtualNodeName(providerID.ClusterName)
	return Poll(ctx, func(ctx context.Context) error { return NodeReady(ctx, consumerC, node) })
}
