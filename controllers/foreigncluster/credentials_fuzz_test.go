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
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// TestCredentialsAcceptWhatTheProviderWrites: the kubeconfig clientcmd renders
// for an identity (as controllers/resourceoffer does) passes the checks.
func TestCredentialsAcceptWhatTheProviderWrites(t *testing.T) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["milan"] = &clientcmdapi.Cluster{Server: "https://10.0.0.1:6443", CertificateAuthorityData: []byte(testCA)}
	kc.AuthInfos["milan"] = &clientcmdapi.AuthInfo{Token: "eyJhbGciOi.payload.sig"}
	kc.Contexts["milan"] = &clientcmdapi.Context{Cluster: "milan", AuthInfo: "milan", Namespace: "liqo-tenant-rome"}
	kc.CurrentContext = "milan"
	raw, err := clientcmd.Write(*kc)
	if err != nil {
		t.Fatal(err)
	}
	c, err := credentialsFromSecret(secret(map[string]string{"kubeconfig": string(raw)}))
	if err != nil {
		t.Fatalf("the provider's own kubeconfig is refused: %v\n%s", err, raw)
	}
	if c.config.Host != "https://10.0.0.1:6443" || c.config.BearerToken != "eyJhbGciOi.payload.sig" || c.namespace != "liqo-tenant-rome" {
		t.Fatalf("wrong reduction: %+v", c)
	}
}

// FuzzCredentialsFromSecret: whatever the secret store holds, parsing never
// panics, and an accepted Secret yields a client configured by an https host,
// PEM CA certificates and a bearer token, and by nothing else.
func FuzzCredentialsFromSecret(f *testing.F) {
	ca64 := base64.StdEncoding.EncodeToString([]byte(testCA))
	for _, kc := range []string{
		kubeconfig,
		kubeconfigWith("", "\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}"),
		kubeconfigWith("", "\n    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"),
		kubeconfigWith("\n    proxy-url: http://127.0.0.1:3128", ""),
		kubeconfigWith("\n    insecure-skip-tls-verify: true", ""),
		kubeconfigWith("", "\n    auth-provider: {name: gcp}"),
		kubeconfigWith("", "\n    client-certificate-data: "+ca64),
		strings.Replace(kubeconfig, "https://", "http://", 1),
		"clusters: [{name: a, cluster: {server: 'https://a', certificate-authority-data: " + ca64 + "}}]\nusers: [{name: a, user: {token: t}}]\n",
		"{}", "", "\x00", "clusters: null",
	} {
		f.Add([]byte(kc), true, "", "", "", "")
	}
	f.Add([]byte(nil), false, "https://milan:6443", testCA, "t", "liqo-tenant-rome")
	f.Add([]byte(nil), false, "https://u:p@milan:6443", testCA, "t", "liqo-tenant-rome")
	f.Add([]byte(nil), false, "https://milan:6443/prefix", testCA+"junk", "t\n", "liqo-tenant-rome")
	f.Add([]byte(nil), false, "https:opaque", "", " ", "")
	f.Fuzz(func(t *testing.T, kc []byte, useKubeconfig bool, server, ca, token, namespace string) {
		s := secret(map[string]string{"server": server, "ca.crt": ca, "token": token, "namespace": namespace})
		if useKubeconfig {
			s.Data["kubeconfig"] = kc
		}
		c, err := credentialsFromSecret(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "secret liqo/milan-credentials: key ") {
				t.Fatalf("error does not name the secret and key: %v", err)
			}
			return
		}
		assertOnlyServerCAToken(t, c.config)
		if c.namespace == "" {
			t.Fatal("accepted without a tenant namespace")
		}
	})
}

func assertOnlyServerCAToken(t *testing.T, cfg *rest.Config) {
	t.Helper()
	u, err := url.Parse(cfg.Host)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil {
		t.Fatalf("accepted host %q", cfg.Host)
	}
	if cfg.BearerToken == "" || strings.TrimSpace(cfg.BearerToken) != cfg.BearerToken {
		t.Fatalf("accepted token %q", cfg.BearerToken)
	}
	rest := cfg.CAData
	for n := 0; ; n++ {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			if n == 0 {
				t.Fatal("accepted without a CA certificate")
			}
			break
		}
		if _, err := x509.ParseCertificate(b.Bytes); b.Type != "CERTIFICATE" || err != nil {
			t.Fatalf("accepted CA block %q: %v", b.Type, err)
		}
	}
	// Nothing but these fields: no exec provider, token file, auth provider,
	// proxy, insecure mode, server name override, client certificate or
	// impersonation can hide in an accepted config.
	want := restConfig(peerIdentity{server: cfg.Host, ca: cfg.CAData, token: cfg.BearerToken})
	if !reflect.DeepEqual(cfg, want) {
		t.Fatalf("accepted config has more than host, CA and token:\n%#v", cfg)
	}
	if cfg.ExecProvider != nil || cfg.BearerTokenFile != "" || cfg.Proxy != nil || cfg.Insecure || cfg.AuthProvider != nil ||
		cfg.CertFile != "" || cfg.KeyFile != "" || cfg.CAFile != "" || cfg.ServerName != "" || len(cfg.CertData) > 0 || len(cfg.KeyData) > 0 {
		t.Fatalf("accepted config carries a forbidden field: %#v", cfg)
	}
}
