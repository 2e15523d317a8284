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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

var identityKey = client.ObjectKey{Namespace: "liqo", Name: "liqo-identity-rome"}

func TestReconcileIssuesAKubeconfigForTheTenantNamespace(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer)
	g := e.g
	e.publish(offer)

	s := &corev1.Secret{}
	g.Expect(e.get(identityKey, s)).To(Succeed())
	g.Expect(s.Labels).To(HaveKeyWithValue(sharingv1alpha1.RemoteClusterIDLabel, "rome-id"))
	g.Expect(s.Type).To(Equal(corev1.SecretTypeOpaque))
	g.Expect(s.Data).To(And(
		HaveKeyWithValue(sharingv1alpha1.IdentityServerKey, []byte(apiServerURL)),
		HaveKeyWithValue(sharingv1alpha1.IdentityCAKey, []byte("milan-ca")),
		HaveKeyWithValue(sharingv1alpha1.IdentityTokenKey, []byte("token-1")),
		HaveKeyWithValue(sharingv1alpha1.IdentityNamespaceKey, []byte("liqo-tenant-rome")),
		HaveKeyWithValue(sharingv1alpha1.IdentityClusterIDKey, []byte(providerID)),
		HaveKeyWithValue(sharingv1alpha1.IdentityClusterNameKey, []byte(providerName)),
	))

	kc, err := clientcmd.Load(s.Data[sharingv1alpha1.IdentityKubeconfigKey])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kc.CurrentContext).To(Equal(providerName))
	g.Expect(kc.Contexts).To(HaveKey(providerName))
	g.Expect(kc.Contexts[providerName].Cluster).To(Equal(providerName))
	g.Expect(kc.Contexts[providerName].AuthInfo).To(Equal(providerName))
	g.Expect(kc.Clusters[providerName].CertificateAuthorityData).To(Equal([]byte("milan-ca")))

	cc, err := clientcmd.NewClientConfigFromBytes(s.Data[sharingv1alpha1.IdentityKubeconfigKey])
	g.Expect(err).NotTo(HaveOccurred())
	cfg, err := cc.ClientConfig()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.Host).To(Equal(apiServerURL))
	g.Expect(cfg.BearerToken).To(Equal("token-1"))
	ns, _, err := cc.Namespace()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ns).To(Equal("liqo-tenant-rome"))
}

func TestReconcileReissuesTheIdentityWhenTheTokenRotates(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer)
	g := e.g
	e.publish(offer)

	// An operator rotates by deleting the token Secret.
	old := &corev1.Secret{}
	g.Expect(e.get(client.ObjectKey{Namespace: "liqo-tenant-rome", Name: sharingv1alpha1.ConsumerTokenSecretName}, old)).To(Succeed())
	g.Expect(e.c.Delete(context.Background(), old)).To(Succeed())
	e.mustReconcile(offer)
	e.fillToken("liqo-tenant-rome", "token-2")
	e.mustReconcile(offer)

	s := &corev1.Secret{}
	g.Expect(e.get(identityKey, s)).To(Succeed())
	g.Expect(s.Data[sharingv1alpha1.IdentityTokenKey]).To(Equal([]byte("token-2")))
	cfg, err := clientcmd.RESTConfigFromKubeConfig(s.Data[sharingv1alpha1.IdentityKubeconfigKey])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cfg.BearerToken).To(Equal("token-2"))
}

func TestIdentityFallsBackToTheClusterIDForItsName(t *testing.T) {
	g := NewWithT(t)
	data, err := identitySecretData(identity{server: apiServerURL, token: []byte("t"), namespace: "liqo-tenant-rome",
		clusterID: providerID, clusterName: (&ResourceOfferReconciler{LocalClusterID: providerID}).providerName()})
	g.Expect(err).NotTo(HaveOccurred())
	kc, err := clientcmd.Load(data[sharingv1alpha1.IdentityKubeconfigKey])
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(kc.CurrentContext).To(Equal(providerID))
}

// The PushSecret pushes the keys of sharingv1alpha1.IdentityKeys one by one:
// a key the identity gains and the list lacks would never reach the consumer.
func TestIdentityHasExactlyTheKeysThePushSecretPushes(t *testing.T) {
	g := NewWithT(t)
	data, err := identitySecretData(identity{server: apiServerURL, ca: []byte("ca"), token: []byte("t"), namespace: "liqo-tenant-rome",
		clusterID: providerID, clusterName: "milan"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(data).To(HaveLen(len(sharingv1alpha1.IdentityKeys())))
	for _, key := range sharingv1alpha1.IdentityKeys() {
		g.Expect(data).To(HaveKey(key))
	}
}
