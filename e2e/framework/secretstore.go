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

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// The lab's secret store, as clusters/fleet-secrets/clustersecretstore.yaml
// names it: a namespace of one designated cluster, reached through External
// Secrets' Kubernetes provider with a ServiceAccount token.
const (
	StoreNamespace = "spillway-fleet-secrets"
	storeAccount   = "fleet-secrets"
	storeToken     = "fleet-secrets-token"
	// StoreCredentials is the bootstrap Secret every cluster holds: the
	// store's CA and token, which the ClusterSecretStore reads.
	StoreCredentials          = "fleet-secrets-credentials"
	StoreCredentialsNamespace = "external-secrets"
	// StoreSettings is the ConfigMap in flux-system from which the Kustomization
	// fleet-secrets substitutes ${FLEET_SECRETS_SERVER}.
	StoreSettings = "fleet-secrets-store"
)

// SecretStore is the store's address and credentials, as handed to every cluster.
type SecretStore struct {
	Host   *lab.Cluster
	server string
	ca     []byte
	token  []byte
}

// StartSecretStore makes a namespace of host the fleet's secret store: a
// ServiceAccount that may read and write Secrets there and nowhere else, and
// a long-lived token for it. This is the store's own setup (with Vault: a
// policy and a role), not a step of the fleet.
func StartSecretStore(ctx context.Context, host *lab.Cluster) (*SecretStore, error) {
	c, err := Client(host)
	if err != nil {
		return nil, err
	}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: StoreNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: storeAccount, Namespace: StoreNamespace}},
		&rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: storeAccount, Namespace: StoreNamespace},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"},
				Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}}},
		&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: storeAccount, Namespace: StoreNamespace},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: storeAccount},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: storeAccount, Namespace: StoreNamespace}}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: storeToken, Namespace: StoreNamespace,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: storeAccount}}, Type: corev1.SecretTypeServiceAccountToken},
	}
	for _, o := range objs {
		if err := client.IgnoreAlreadyExists(c.Create(ctx, o)); err != nil {
			return nil, fmt.Errorf("cluster %s: creating the secret store's %T %s: %w", host.Name, o, o.GetName(), err)
		}
	}
	s := &SecretStore{Host: host, server: host.Server()}
	err = Poll(ctx, func(ctx context.Context) error {
		tok := &corev1.Secret{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: StoreNamespace, Name: storeToken}, tok); err != nil {
			return err
		}
		s.token, s.ca = tok.Data[corev1.ServiceAccountTokenKey], tok.Data[corev1.ServiceAccountRootCAKey]
		if len(s.token) == 0 || len(s.ca) == 0 {
			return fmt.Errorf("the token controller has not filled %s/%s yet", StoreNamespace, storeToken)
		}
		return nil
	})
	return s, err
}

// Bootstrap writes the store's credentials to c: the Secret the
// ClusterSecretStore reads and the ConfigMap holding the store's address. It
// is the one Secret of the fleet created by hand, as any secret store's
// credentials must be, since they cannot come from the store itself.
func (s *SecretStore) Bootstrap(ctx context.Context, c *lab.Cluster) error {
	cl, err := Client(c)
	if err != nil {
		return err
	}
	for _, ns := range []string{StoreCredentialsNamespace, fluxNamespace} {
		if err := ensureNamespace(ctx, cl, ns); err != nil {
			return err
		}
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: StoreCredentials, Namespace: StoreCredentialsNamespace}}
	settings := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: StoreSettings, Namespace: fluxNamespace}}
	for _, o := range []client.Object{secret, settings} {
		err := cl.Get(ctx, client.ObjectKeyFromObject(o), o)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return err
		default:
			continue // already bootstrapped
		}
		secret.Data = map[string][]byte{"token": s.token, "ca.crt": s.ca}
		settings.Data = map[string]string{"FLEET_SECRETS_SERVER": s.server}
		if err := cl.Create(ctx, o); err != nil {
			return fmt.Errorf("cluster %s: bootstrapping the secret store's %s: %w", c.Name, o.GetName(), err)
		}
	}
	return nil
}

func ensureNamespace(ctx context.Context, c client.Client, name string) error {
	return client.IgnoreAlreadyExists(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}))
}
