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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// StandInProviders stand for many providers on one lab: each is a namespace
// on the host cluster's API server with a ServiceAccount whose token is the
// consumer's identity (bound to the rights a provider's ResourceOffer grants a
// consumer) and the offer ConfigMap a provider publishes there, under a
// cluster ID of its own. The consumer peers with each through a ForeignCluster
// and a credentials Secret, as with any provider: real API server, real token,
// real RBAC; only the host's ResourceOffer controller is not the one writing
// the offer, since it would name the host's own cluster ID and every peering
// would be the host.
type StandInProviders struct {
	consumer, host client.Client
	consumerID     Identity
	server         string
	ca             []byte
	labels         map[string]string
}

// NewStandInProviders hosts stand-in providers of consumer on host's API
// server; labels mark every object they create on either cluster.
func NewStandInProviders(consumer *lab.Cluster, consumerID Identity, host *lab.Cluster, labels map[string]string) (*StandInProviders, error) {
	cfg, err := host.RESTConfig()
	if err != nil {
		return nil, err
	}
	ca := cfg.CAData
	if len(ca) == 0 {
		if ca, err = os.ReadFile(cfg.CAFile); err != nil {
			return nil, err
		}
	}
	p := &StandInProviders{consumerID: consumerID, server: host.Server(), ca: ca, labels: labels}
	if p.consumer, err = Client(consumer); err != nil {
		return nil, err
	}
	if p.host, err = Client(host); err != nil {
		return nil, err
	}
	return p, nil
}

// ClusterID is the cluster ID the stand-in provider name offers under.
func ClusterID(name string) string { return name + "-id" }

// Prepare makes the stand-in provider name: what a provider and `spillway
// peer` set up before the consumer's ForeignCluster, that is the namespace,
// ServiceAccount, RBAC and offer on the host, and the credentials Secret on
// the consumer. Already existing objects are kept.
func (p *StandInProviders) Prepare(ctx context.Context, name string) error {
	ns := name
	create := func(c client.Client, o client.Object) error { return client.IgnoreAlreadyExists(c.Create(ctx, o)) }
	if err := create(p.host, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: p.labels}}); err != nil {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "consumer", Namespace: ns}}
	if err := create(p.host, sa); err != nil {
		return err
	}
	crud := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	if err := create(p.host, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "consumer", Namespace: ns},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"virtualkubelet.liqo.io"}, Resources: []string{"shadowpods"}, Verbs: crud},
			{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets", "services", "persistentvolumeclaims", "events"}, Verbs: crud},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: crud},
		}}); err != nil {
		return err
	}
	if err := create(p.host, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "consumer", Namespace: ns},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "consumer"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "consumer", Namespace: ns}}}); err != nil {
		return err
	}
	tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(3600))}}
	if err := p.host.SubResource("token").Create(ctx, sa, tr); err != nil {
		return fmt.Errorf("token of stand-in provider %s: %w", name, err)
	}
	resources, err := json.Marshal(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi"),
		corev1.ResourcePods: resource.MustParse("10")})
	if err != nil {
		return err
	}
	if err := create(p.host, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: sharingv1alpha1.OfferConfigMapName, Namespace: ns},
		Data: map[string]string{sharingv1alpha1.OfferProviderClusterIDKey: ClusterID(name), sharingv1alpha1.OfferProviderClusterNameKey: name,
			sharingv1alpha1.OfferConsumerClusterIDKey: p.consumerID.ClusterID, sharingv1alpha1.OfferResourcesKey: string(resources),
			sharingv1alpha1.OfferReadyKey: "true"}}); err != nil {
		return err
	}
	return create(p.consumer, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: credentials(name), Namespace: "liqo", Labels: p.labels},
		Data: map[string][]byte{sharingv1alpha1.IdentityServerKey: []byte(p.server), sharingv1alpha1.IdentityCAKey: p.ca,
			sharingv1alpha1.IdentityTokenKey: []byte(tr.Status.Token), sharingv1alpha1.IdentityNamespaceKey: []byte(ns)}})
}

func credentials(name string) string { return name + "-credentials" }

// Peer creates the consumer's ForeignCluster for the prepared stand-in name:
// the object a commit to the consumer's folder makes Flux apply.
func (p *StandInProviders) Peer(ctx context.Context, name string) error {
	peering := manifests.Peering{Consumer: p.consumerID.ClusterName, Provider: name, ClusterID: ClusterID(name), CredentialsSecret: credentials(name)}
	return client.IgnoreAlreadyExists(p.consumer.Create(ctx, peering.ForeignCluster()))
}

// Unpeer deletes the ForeignClusters of names, without waiting.
func (p *StandInProviders) Unpeer(ctx context.Context, names []string) error {
	for _, name := range names {
		if err := client.IgnoreNotFound(p.consumer.Delete(ctx, &discoveryv1alpha1.ForeignCluster{ObjectMeta: metav1.ObjectMeta{Name: name}})); err != nil {
			return err
		}
	}
	return nil
}

// Gone fails unless the consumer has let go of every peering of names: the
// ForeignCluster's finalizer done, the virtual node deleted.
func (p *StandInProviders) Gone(ctx context.Context, names []string) error {
	for _, name := range names {
		if err := absent(p.consumer.Get(ctx, client.ObjectKey{Name: name}, &discoveryv1alpha1.ForeignCluster{})); err != nil {
			return fmt.Errorf("ForeignCluster %s: %w", name, err)
		}
		if err := absent(p.consumer.Get(ctx, client.ObjectKey{Name: virtualkubeletv1alpha1.VirtualNodeName(name)}, &corev1.Node{})); err != nil {
			return fmt.Errorf("virtual node of %s: %w", name, err)
		}
	}
	return nil
}

// absent turns the error of a Get into nil when the object is gone, and an
// error saying it is still there when the Get succeeded.
func absent(getErr error) error {
	switch {
	case apierrors.IsNotFound(getErr):
		return nil
	case getErr == nil:
		return errors.New("still there")
	default:
		return getErr
	}
}

// Remove deletes the stand-in providers of names: the credentials Secrets and
// the host's namespaces. Call it once the peerings are Gone.
func (p *StandInProviders) Remove(ctx context.Context, names []string) error {
	for _, name := range names {
		if err := client.IgnoreNotFound(p.consumer.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: credentials(name), Namespace: "liqo"}})); err != nil {
			return err
		}
		// A second call finds the namespace terminating.
		if err := p.host.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); !apierrors.IsConflict(err) && client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// Forget deletes the peerings of names, waits up to timeout until the
// consumer has let go of them, then removes the stand-in providers.
func (p *StandInProviders) Forget(ctx context.Context, names []string, timeout time.Duration) error {
	if err := p.Unpeer(ctx, names); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := Poll(wctx, func(ctx context.Context) error { return p.Gone(ctx, names) }); err != nil {
		return err
	}
	return p.Remove(ctx, names)
}
