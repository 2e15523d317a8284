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

package resourceoffer

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// identity is what a consumer needs to reach its tenant namespace here.
type identity struct {
	server      string
	ca, token   []byte
	namespace   string
	clusterID   string
	clusterName string
}

// identitySecretData renders the identity both as a kubeconfig, whose
// context namespace is the tenant namespace, and as separate keys, so the
// consumer (or a person with kubectl) can use either.
func identitySecretData(id identity) (map[string][]byte, error) {
	name := id.clusterName
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{Server: id.server, CertificateAuthorityData: id.ca}
	kc.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: string(id.token)}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: id.namespace}
	kc.CurrentContext = name
	raw, err := clientcmd.Write(*kc)
	if err != nil {
		return nil, fmt.Errorf("rendering the consumer's kubeconfig: %w", err)
	}
	return map[string][]byte{
		sharingv1alpha1.IdentityKubeconfigKey:  raw,
		sharingv1alpha1.IdentityServerKey:      []byte(id.server),
		sharingv1alpha1.IdentityCAKey:          id.ca,
		sharingv1alpha1.IdentityTokenKey:       id.token,
		sharingv1alpha1.IdentityNamespaceKey:   []byte(id.namespace),
		sharingv1alpha1.IdentityClusterIDKey:   []byte(id.clusterID),
		sharingv1alpha1.IdentityClusterNameKey: []byte(id.clusterName),
	}, nil
}

// ensureIdentitySecret writes the identity the PushSecret carries to the
// consumer; a new token (rotation) rewrites it.
func (r *ResourceOfferReconciler) ensureIdentitySecret(ctx context.Context, s *scope, token *corev1.Secret) (*tenantConflict, error) {
	data, err := identitySecretData(identity{
		server: r.APIServerURL, ca: token.Data[corev1.ServiceAccountRootCAKey], token: token.Data[corev1.ServiceAccountTokenKey],
		namespace: s.tenantNamespace, clusterID: r.LocalClusterID, clusterName: r.providerName(),
	})
	if err != nil {
		return nil, err
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.identitySecret.Namespace, Name: s.identitySecret.Name}}
	err = r.createOrUpdate(ctx, secret, func() error {
		if err := claim(secret, s.clusterID, r.describe(secret)); err != nil {
			return err
		}
		consumerLabels(secret, s.clusterID)
		if secret.ResourceVersion == "" {
			secret.Type = corev1.SecretTypeOpaque
		}
		secret.Data = data
		return nil
	})
	var conflict *tenantConflict
	if errors.As(err, &conflict) {
		return conflict, r.findHolder(ctx, s, conflict)
	}
	return nil, err
}
