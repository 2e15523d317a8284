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
	"fmt"

	clientcmdv1 "k8s.io/client-go/tools/clientcmd/api/v1"
	"sigs.k8s.io/yaml"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// identityFromKubeconfig reduces a kubeconfig to server, CA, token and the
// context's namespace. It is decoded strictly (an unknown or duplicated field
// is an error) into client-go's serialised types and checked field by field;
// it never reaches clientcmd, which would honour exec plugins, token files,
// auth providers and proxies. Inert fields (preferences, extensions,
// disable-compression) are ignored.
func identityFromKubeconfig(raw []byte) (peerIdentity, error) {
	kcErr := func(field, problem string) error {
		return &credentialsError{key: sharingv1alpha1.IdentityKubeconfigKey, field: field, problem: problem, fix: credentialsFix}
	}
	var kc clientcmdv1.Config
	if err := yaml.UnmarshalStrict(raw, &kc); err != nil {
		return peerIdentity{}, kcErr("", fmt.Sprintf("is not a kubeconfig (%v)", err))
	}
	switch {
	case kc.APIVersion != "" && kc.APIVersion != "v1":
		return peerIdentity{}, kcErr("apiVersion", fmt.Sprintf("is %q, not v1", kc.APIVersion))
	case kc.Kind != "" && kc.Kind != "Config":
		return peerIdentity{}, kcErr("kind", fmt.Sprintf("is %q, not Config", kc.Kind))
	case len(kc.Clusters) != 1:
		return peerIdentity{}, kcErr("clusters", fmt.Sprintf("has %d entries, exactly one is allowed", len(kc.Clusters)))
	case len(kc.AuthInfos) != 1:
		return peerIdentity{}, kcErr("users", fmt.Sprintf("has %d entries, exactly one is allowed", len(kc.AuthInfos)))
	case len(kc.Contexts) > 1:
		return peerIdentity{}, kcErr("contexts", fmt.Sprintf("has %d entries, at most one is allowed", len(kc.Contexts)))
	}
	cluster, user := kc.Clusters[0], kc.AuthInfos[0]
	if err := checkKubeconfigUser(user); err != nil {
		return peerIdentity{}, err
	}
	if err := checkKubeconfigCluster(cluster); err != nil {
		return peerIdentity{}, err
	}
	id := peerIdentity{server: cluster.Cluster.Server, ca: cluster.Cluster.CertificateAuthorityData, token: user.AuthInfo.Token}
	if err := checkToken(&id.token); err != nil {
		return peerIdentity{}, kcErr(fmt.Sprintf("users[%s].user.token", user.Name), err.Error())
	}
	if len(kc.Contexts) == 1 {
		ctx := kc.Contexts[0]
		switch {
		case ctx.Context.Cluster != cluster.Name:
			return peerIdentity{}, kcErr(fmt.Sprintf("contexts[%s].context.cluster", ctx.Name),
				fmt.Sprintf("is %q but the only cluster is %q", ctx.Context.Cluster, cluster.Name))
		case ctx.Context.AuthInfo != user.Name:
			return peerIdentity{}, kcErr(fmt.Sprintf("contexts[%s].context.user", ctx.Name),
				fmt.Sprintf("is %q but the only user is %q", ctx.Context.AuthInfo, user.Name))
		case kc.CurrentContext != "" && kc.CurrentContext != ctx.Name:
			return peerIdentity{}, kcErr("current-context", fmt.Sprintf("is %q but the only context is %q", kc.CurrentContext, ctx.Name))
		}
		id.namespace = ctx.Context.Namespace
	} else if kc.CurrentContext != "" {
		return peerIdentity{}, kcErr("current-context", fmt.Sprintf("is %q but there are no contexts", kc.CurrentContext))
	}
	return id, nil
}

// checkKubeconfigUser allows a token and nothing else: every other way of
// authenticating either runs code, reads a local file, or is not what a
// provider issues to a consumer.
func checkKubeconfigUser(u clientcmdv1.NamedAuthInfo) error {
	a := u.AuthInfo
	for _, f := range []struct {
		name string
		set  bool
		why  string
	}{
		{"exec", a.Exec != nil, "the manager never runs a command named by a peer's credentials"},
		{"auth-provider", a.AuthProvider != nil, "auth provider plugins are not used towards peers"},
		{"tokenFile", a.TokenFile != "", "the manager never reads a file named by a peer's credentials (it could send its own token)"},
		{"client-certificate", a.ClientCertificate != "", "the manager never reads a file named by a peer's credentials"},
		{"client-key", a.ClientKey != "", "the manager never reads a file named by a peer's credentials"},
		{"client-certificate-data", len(a.ClientCertificateData) > 0, "peers authenticate consumers by token only"},
		{"client-key-data", len(a.ClientKeyData) > 0, "peers authenticate consumers by token only"},
		{"username", a.Username != "", "basic authentication is not used towards peers"},
		{"password", a.Password != "", "basic authentication is not used towards peers"},
		{"as", a.Impersonate != "", "a consumer acts as its own identity only"},
		{"as-uid", a.ImpersonateUID != "", "a consumer acts as its own identity only"},
		{"as-groups", len(a.ImpersonateGroups) > 0, "a consumer acts as its own identity only"},
		{"as-user-extra", len(a.ImpersonateUserExtra) > 0, "a consumer acts as its own identity only"},
	} {
		if f.set {
			return &credentialsError{key: sharingv1alpha1.IdentityKubeconfigKey, field: fmt.Sprintf("users[%s].user.%s", u.Name, f.name),
				problem: "is not allowed (" + f.why + ")", fix: "remove it and use a token: " + credentialsFix}
		}
	}
	return nil
}

// checkKubeconfigCluster allows an https server and inline CA certificates.
func checkKubeconfigCluster(c clientcmdv1.NamedCluster) error {
	field := func(name string) string { return fmt.Sprintf("clusters[%s].cluster.%s", c.Name, name) }
	refuse := func(name, problem string) error {
		return &credentialsError{key: sharingv1alpha1.IdentityKubeconfigKey, field: field(name), problem: problem, fix: credentialsFix}
	}
	cl := c.Cluster
	switch {
	case cl.InsecureSkipTLSVerify:
		return refuse("insecure-skip-tls-verify", "is not allowed (the provider must prove itself with the CA)")
	case cl.ProxyURL != "":
		return refuse("proxy-url", "is not allowed (the credentials must not route the manager's traffic)")
	case cl.CertificateAuthority != "":
		return refuse("certificate-authority", "is not allowed (the manager never reads a file named by a peer's credentials); inline it as certificate-authority-data")
	case cl.TLSServerName != "":
		return refuse("tls-server-name", "is not allowed (the server's certificate must name the server address)")
	}
	if err := checkServer(cl.Server); err != nil {
		return refuse("server", err.Error())
	}
	if len(cl.CertificateAuthorityData) == 0 {
		return refuse("certificate-authority-data", "is missing")
	}
	if err := checkCA(cl.CertificateAuthorityData); err != nil {
		return refuse("certificate-authority-data", err.Error())
	}
	return nil
}
