package foreigncluster

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// credentials are what a consumer needs to talk to a provider, read from the
// Secret an ExternalSecret delivers.
type credentials struct {
	config *rest.Config
	// namespace is the consumer's tenant namespace on the provider.
	namespace string
	// fingerprint changes whenever the Secret's content does: a new one means reconnect.
	fingerprint string
}

// The client rate limit towards a provider. Every offloaded pod costs at least
// one request through this identity (its ShadowPod), so client-go's default of
// 5/s made 1 000 pods take over 200 s to reach the provider (make bench). The
// provider's API priority and fairness still bounds each tenant.
const (
	remoteQPS   = 100
	remoteBurst = 200
)

// credentialsFromSecret accepts either a kubeconfig (key "kubeconfig", tenant
// namespace from its context or key "namespace") or the keys server, ca.crt,
// token and namespace. Errors name the Secret, the key and the fix.
func credentialsFromSecret(s *corev1.Secret) (*credentials, error) {
	ref := s.Namespace + "/" + s.Name
	creds := &credentials{fingerprint: fingerprint(s.Data), namespace: string(s.Data[sharingv1alpha1.IdentityNamespaceKey])}
	if kc, ok := s.Data[sharingv1alpha1.IdentityKubeconfigKey]; ok {
		cc, err := clientcmd.NewClientConfigFromBytes(kc)
		if err != nil {
			return nil, fmt.Errorf("secret %s: key %q is not a kubeconfig (%v): regenerate the identity on the provider", ref, sharingv1alpha1.IdentityKubeconfigKey, err)
		}
		if creds.config, err = cc.ClientConfig(); err != nil {
			return nil, fmt.Errorf("secret %s: key %q: %v: it needs a current context with a server and a user", ref, sharingv1alpha1.IdentityKubeconfigKey, err)
		}
		if ns, _, err := cc.Namespace(); err == nil && creds.namespace == "" && ns != "default" {
			creds.namespace = ns
		}
	} else {
		server, token := string(s.Data[sharingv1alpha1.IdentityServerKey]), string(s.Data[sharingv1alpha1.IdentityTokenKey])
		for key, v := range map[string]string{sharingv1alpha1.IdentityServerKey: server, sharingv1alpha1.IdentityTokenKey: token} {
			if v == "" {
				return nil, fmt.Errorf("secret %s has neither key %q nor key %q: add a kubeconfig, or server, ca.crt, token and namespace",
					ref, sharingv1alpha1.IdentityKubeconfigKey, key)
			}
		}
		if u, err := url.Parse(server); err != nil || u.Scheme != "https" || u.Host == "" {
			return nil, fmt.Errorf("secret %s: key %q = %q is not an https:// URL", ref, sharingv1alpha1.IdentityServerKey, server)
		}
		creds.config = &rest.Config{Host: server, BearerToken: token,
			TLSClientConfig: rest.TLSClientConfig{CAData: s.Data[sharingv1alpha1.IdentityCAKey]}}
	}
	if creds.namespace == "" {
		return nil, fmt.Errorf("secret %s names no tenant namespace: set key %q (or the kubeconfig context's namespace) to the namespace the provider created for this cluster",
			ref, sharingv1alpha1.IdentityNamespaceKey)
	}
	creds.config.UserAgent = "spillway-controller"
	creds.config.QPS, creds.config.Burst = remoteQPS, remoteBurst
	return creds, nil
}

func fingerprint(data map[string][]byte) string {
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(data[k])
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
