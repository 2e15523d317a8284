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
	"crypto/ed25519"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// testCA is a self-signed CA certificate in PEM, the same on every run
// (ed25519 signatures are deterministic), so fuzz seeds are stable.
var testCA = func() string {
	key := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "milan-ca"}, IsCA: true, BasicConstraintsValid: true,
		NotBefore: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2036, 1, 1, 0, 0, 0, 0, time.UTC)}
	der, err := x509.CreateCertificate(nil, tmpl, tmpl, key.Public(), key)
	if err != nil {
		panic(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}()

// kubeconfigWith is the provider's kubeconfig for rome; extraCluster and
// extraUser are spliced into the cluster and user entries.
func kubeconfigWith(extraCluster, extraUser string) string {
	return `apiVersion: v1
kind: Config
clusters:
- name: milan
  cluster:
    server: https://127.0.0.1:17022
    certificate-authority-data: ` + base64.StdEncoding.EncodeToString([]byte(testCA)) + extraCluster + `
users:
- name: milan
  user:
    token: abc` + extraUser + `
contexts:
- name: milan
  context: {cluster: milan, user: milan, namespace: liqo-tenant-rome}
current-context: milan
`
}

var kubeconfig = kubeconfigWith("", "")

func secret(data map[string]string) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "milan-credentials"}, Data: map[string][]byte{}}
	for k, v := range data {
		s.Data[k] = []byte(v)
	}
	return s
}

// goodKeys are the separate keys of the provider's identity Secret.
func goodKeys(override ...string) map[string]string {
	m := map[string]string{"server": "https://milan:6443", "ca.crt": testCA, "token": "t", "namespace": "liqo-tenant-rome"}
	for i := 0; i+1 < len(override); i += 2 {
		if override[i+1] == "<delete>" {
			delete(m, override[i])
			continue
		}
		m[override[i]] = override[i+1]
	}
	return m
}

func TestCredentialsFromKubeconfig(t *testing.T) {
	g := NewWithT(t)
	c, err := credentialsFromSecret(secret(map[string]string{"kubeconfig": kubeconfig}))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.config.Host).To(Equal("https://127.0.0.1:17022"))
	g.Expect(c.config.BearerToken).To(Equal("abc"))
	g.Expect(string(c.config.CAData)).To(Equal(testCA))
	g.Expect(c.namespace).To(Equal("liqo-tenant-rome"))
}

func TestCredentialsFromKeys(t *testing.T) {
	g := NewWithT(t)
	c, err := credentialsFromSecret(secret(goodKeys("token", "t\n")))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(c.config.Host).To(Equal("https://milan:6443"))
	g.Expect(c.config.BearerToken).To(Equal("t"), "a token file's line break is trimmed")
	g.Expect(c.namespace).To(Equal("liqo-tenant-rome"))
}

func TestCredentialsNamespaceKeyWinsOverTheContext(t *testing.T) {
	c, err := credentialsFromSecret(secret(map[string]string{"kubeconfig": kubeconfig, "namespace": "liqo-tenant-other"}))
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	NewWithT(t).Expect(c.namespace).To(Equal("liqo-tenant-other"))
}

func TestCredentialsRaiseTheClientRateLimit(t *testing.T) {
	for _, data := range []map[string]string{{"kubeconfig": kubeconfig}, goodKeys()} {
		g := NewWithT(t)
		c, err := credentialsFromSecret(secret(data))
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(c.config.QPS).To(Equal(float32(remoteQPS)), "not client-go's default of 5")
		g.Expect(c.config.Burst).To(Equal(remoteBurst))
	}
}

func TestCredentialsFingerprintFollowsContent(t *testing.T) {
	g := NewWithT(t)
	a, _ := credentialsFromSecret(secret(goodKeys("token", "t1")))
	b, _ := credentialsFromSecret(secret(goodKeys("token", "t2")))
	c, _ := credentialsFromSecret(secret(goodKeys("token", "t1")))
	g.Expect(a.fingerprint).NotTo(Equal(b.fingerprint))
	g.Expect(a.fingerprint).To(Equal(c.fingerprint))
}

// TestCredentialsRefuseWhatIsNotServerCAToken: every way a kubeconfig or the
// keys could make the manager run a command, read a file, use a proxy or skip
// verification is refused, naming the Secret, the key and the field.
func TestCredentialsRefuseWhatIsNotServerCAToken(t *testing.T) {
	const user = "users[milan].user."
	const cluster = "clusters[milan].cluster."
	for _, tc := range []struct {
		name string
		data map[string]string
		want []string
	}{
		{"exec", map[string]string{"kubeconfig": kubeconfigWith("", "\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, id]}")},
			[]string{`key "kubeconfig", field ` + user + "exec is not allowed", "never runs a command"}},
		{"exec without token", map[string]string{"kubeconfig": strings.Replace(kubeconfigWith("", "\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: x}"), "token: abc", "username: ''", 1)},
			[]string{user + "exec is not allowed"}},
		{"tokenFile", map[string]string{"kubeconfig": kubeconfigWith("", "\n    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token")},
			[]string{user + "tokenFile is not allowed", "its own token"}},
		{"auth-provider", map[string]string{"kubeconfig": kubeconfigWith("", "\n    auth-provider: {name: oidc}")}, []string{user + "auth-provider"}},
		{"username", map[string]string{"kubeconfig": kubeconfigWith("", "\n    username: admin\n    password: p")}, []string{user + "username"}},
		{"client cert file", map[string]string{"kubeconfig": kubeconfigWith("", "\n    client-certificate: /etc/kubernetes/pki/admin.crt")}, []string{user + "client-certificate is"}},
		{"client key data", map[string]string{"kubeconfig": kubeconfigWith("", "\n    client-key-data: AAAA")}, []string{user + "client-key-data"}},
		{"impersonation", map[string]string{"kubeconfig": kubeconfigWith("", "\n    as: system:admin")}, []string{user + "as is not allowed"}},
		{"ca file", map[string]string{"kubeconfig": kubeconfigWith("\n    certificate-authority: /etc/ssl/ca.crt", "")}, []string{cluster + "certificate-authority is", "inline it"}},
		{"proxy", map[string]string{"kubeconfig": kubeconfigWith("\n    proxy-url: http://evil:3128", "")}, []string{cluster + "proxy-url"}},
		{"insecure", map[string]string{"kubeconfig": kubeconfigWith("\n    insecure-skip-tls-verify: true", "")}, []string{cluster + "insecure-skip-tls-verify"}},
		{"tls-server-name", map[string]string{"kubeconfig": kubeconfigWith("\n    tls-server-name: kubernetes", "")}, []string{cluster + "tls-server-name"}},
		{"http server", map[string]string{"kubeconfig": strings.Replace(kubeconfig, "https://", "http://", 1)}, []string{cluster + "server", "not an https:// URL"}},
		{"no ca", map[string]string{"kubeconfig": strings.Replace(kubeconfigWith("", ""), "certificate-authority-data:", "x-ca:", 1)}, []string{`unknown field`}},
		{"empty ca", map[string]string{"kubeconfig": strings.Replace(kubeconfig, base64.StdEncoding.EncodeToString([]byte(testCA)), `""`, 1)},
			[]string{cluster + "certificate-authority-data is missing"}},
		{"ca not pem", map[string]string{"kubeconfig": strings.Replace(kubeconfig, base64.StdEncoding.EncodeToString([]byte(testCA)), "eA==", 1)},
			[]string{cluster + "certificate-authority-data is not PEM"}},
		{"empty token", map[string]string{"kubeconfig": strings.Replace(kubeconfig, "token: abc", "token: ' '", 1)}, []string{user + "token is empty"}},
		{"unknown field", map[string]string{"kubeconfig": kubeconfigWith("", "\n    tokenPath: /x")}, []string{"unknown field"}},
		{"two users", map[string]string{"kubeconfig": strings.Replace(kubeconfig, "users:\n", "users:\n- name: extra\n  user: {exec: {command: x}}\n", 1)},
			[]string{`field users has 2 entries`}},
		{"context names another user", map[string]string{"kubeconfig": strings.Replace(kubeconfig, "user: milan,", "user: admin,", 1)},
			[]string{`contexts[milan].context.user is "admin"`}},
		{"not yaml", map[string]string{"kubeconfig": "{{{"}, []string{`key "kubeconfig" is not a kubeconfig`}},
		{"keys: no server", goodKeys("server", "<delete>"), []string{`key "server" is missing`, `no key "kubeconfig"`}},
		{"keys: no ca", goodKeys("ca.crt", "<delete>"), []string{`key "ca.crt" is missing`}},
		{"keys: no token", goodKeys("token", ""), []string{`key "token" is missing`}},
		{"keys: http", goodKeys("server", "http://m"), []string{`key "server" "http://m" is not an https:// URL`}},
		{"keys: user in URL", goodKeys("server", "https://admin:secret@m"), []string{`carries a user name or password`}},
		{"keys: ca is a key", goodKeys("ca.crt", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"), []string{`only CERTIFICATE blocks`}},
		{"keys: token with space", goodKeys("token", "a b"), []string{`key "token" has a space`}},
		{"keys: no namespace", goodKeys("namespace", "<delete>"), []string{`key "namespace" is not set`}},
		{"keys: bad namespace", goodKeys("namespace", "../kube-system"), []string{`key "namespace" "../kube-system" is not a namespace name`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			c, err := credentialsFromSecret(secret(tc.data))
			g.Expect(c).To(BeNil())
			g.Expect(err).To(MatchError(ContainSubstring("secret liqo/milan-credentials: key ")))
			for _, w := range tc.want {
				g.Expect(err.Error()).To(ContainSubstring(w))
			}
		})
	}
}
