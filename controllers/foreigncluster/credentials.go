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
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

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

// credentialsFix is the remedy for every credentials Secret that does not
// reduce to server, CA and token.
const credentialsFix = "copy the provider's identity Secret unchanged (keys server, ca.crt, token, namespace, or a kubeconfig with only " +
	"server, certificate-authority-data and token)"

// credentialsError says which part of a credentials Secret is refused and how
// to fix it; the ForeignCluster shows it as Ready=False InvalidCredentials.
type credentialsError struct {
	secret  string // namespace/name of the Secret
	key     string // the Secret's key
	field   string // the field inside the key's value (a kubeconfig path), if any
	problem string
	fix     string
}

func (e *credentialsError) Error() string {
	where := fmt.Sprintf("secret %s: key %q", e.secret, e.key)
	if e.field != "" {
		where += ", field " + e.field
	}
	return fmt.Sprintf("%s %s: %s", where, e.problem, e.fix)
}

// peerIdentity is all a credentials Secret may say: where the provider is,
// how to recognise it, what to present to it, and the tenant namespace.
type peerIdentity struct {
	server    string
	ca        []byte
	token     string
	namespace string
}

// credentialsFromSecret accepts either a kubeconfig (key "kubeconfig", tenant
// namespace from its context or key "namespace") or the keys server, ca.crt,
// token and namespace. Whoever writes the secret store must not be able to
// make the manager run a command, read a file or talk through a proxy, so the
// Secret has to reduce to server, CA and token, and the client is built from
// those three values alone, never by clientcmd. Errors name the Secret, the
// key, the field and the fix.
func credentialsFromSecret(s *corev1.Secret) (*credentials, error) {
	id, err := identityFromSecretData(s.Data)
	if err != nil {
		var ce *credentialsError
		if errors.As(err, &ce) {
			ce.secret = s.Namespace + "/" + s.Name
		}
		return nil, err
	}
	return &credentials{config: restConfig(id), namespace: id.namespace, fingerprint: fingerprint(s.Data)}, nil
}

// restConfig is the only way a provider client is configured: host, CA and
// bearer token, nothing that reads files, runs commands or picks a proxy.
func restConfig(id peerIdentity) *rest.Config {
	return &rest.Config{
		Host:            id.server,
		BearerToken:     id.token,
		TLSClientConfig: rest.TLSClientConfig{CAData: id.ca},
		UserAgent:       "spillway-controller",
		QPS:             remoteQPS,
		Burst:           remoteBurst,
	}
}

// identityFromSecretData checks a credentials Secret's data; a credentialsError
// names the key and field at fault.
func identityFromSecretData(data map[string][]byte) (peerIdentity, error) {
	var id peerIdentity
	if kc, ok := data[sharingv1alpha1.IdentityKubeconfigKey]; ok {
		var err error
		if id, err = identityFromKubeconfig(kc); err != nil {
			return id, err
		}
	} else {
		for _, key := range []string{sharingv1alpha1.IdentityServerKey, sharingv1alpha1.IdentityCAKey, sharingv1alpha1.IdentityTokenKey} {
			if len(data[key]) == 0 {
				return id, &credentialsError{key: key, problem: fmt.Sprintf("is missing or empty, and there is no key %q either", sharingv1alpha1.IdentityKubeconfigKey),
					fix: "add a kubeconfig, or the keys server, ca.crt, token and namespace"}
			}
		}
		id = peerIdentity{server: string(data[sharingv1alpha1.IdentityServerKey]), ca: data[sharingv1alpha1.IdentityCAKey],
			token: string(data[sharingv1alpha1.IdentityTokenKey])}
		for _, check := range []struct {
			key string
			err error
		}{
			{sharingv1alpha1.IdentityServerKey, checkServer(id.server)},
			{sharingv1alpha1.IdentityCAKey, checkCA(id.ca)},
			{sharingv1alpha1.IdentityTokenKey, checkToken(&id.token)},
		} {
			if check.err != nil {
				return id, &credentialsError{key: check.key, problem: check.err.Error(), fix: credentialsFix}
			}
		}
	}
	if ns := string(data[sharingv1alpha1.IdentityNamespaceKey]); ns != "" {
		id.namespace = ns
	}
	if id.namespace == "" {
		return id, &credentialsError{key: sharingv1alpha1.IdentityNamespaceKey, problem: "is not set, nor is the kubeconfig context's namespace",
			fix: "set it to the namespace the provider created for this cluster"}
	}
	if errs := validation.IsDNS1123Label(id.namespace); len(errs) > 0 {
		return id, &credentialsError{key: sharingv1alpha1.IdentityNamespaceKey, problem: fmt.Sprintf("%q is not a namespace name (%s)", id.namespace, strings.Join(errs, "; ")),
			fix: "set it to the namespace the provider created for this cluster"}
	}
	return id, nil
}

// checkServer accepts an https URL with a host and nothing that would change
// what is sent: no credentials in the URL, no query, no fragment.
func checkServer(server string) error {
	u, err := url.Parse(server)
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL (%w)", server, err)
	case u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return fmt.Errorf("%q is not an https:// URL", server)
	case u.User != nil:
		return fmt.Errorf("%q carries a user name or password", u.Redacted())
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return fmt.Errorf("%q has a query or fragment", server)
	}
	return nil
}

// checkCA accepts PEM that holds only certificates, at least one.
func checkCA(ca []byte) error {
	n := 0
	for rest := ca; ; n++ {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			if len(strings.TrimSpace(string(rest))) > 0 {
				return fmt.Errorf("is not PEM (or has data after the last certificate)")
			}
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("holds a PEM %q block; only CERTIFICATE blocks are allowed", block.Type)
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("certificate %d does not parse: %w", n+1, err)
		}
	}
	if n == 0 {
		return fmt.Errorf("holds no PEM certificate")
	}
	return nil
}

// checkToken trims the line break a token file often ends with and refuses an
// empty token or one that cannot be a header value.
func checkToken(token *string) error {
	*token = strings.TrimSpace(*token)
	if *token == "" {
		return fmt.Errorf("is empty")
	}
	if i := strings.IndexFunc(*token, func(r rune) bool { return r > unicode.MaxASCII || !unicode.IsPrint(r) || unicode.IsSpace(r) }); i >= 0 {
		return fmt.Errorf("has a space, control or non-ASCII character at byte %d", i)
	}
	return nil
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
