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

package policies

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// DefaultReservedNamespaces are the namespace names a provider keeps from its
// consumers' twins unless --reserved-namespaces says otherwise: Kubernetes'
// own, Liqo's and Spillway's, and those of the add-ons a fleet commonly
// installs (GitOps, secrets, certificates, monitoring, ingress, policy), which
// a consumer could otherwise claim before the provider installs them and then
// hold Secrets and pods/exec in. liqo-* is not reserved as a whole: the seed
// offloads liqo-demo with EnforceSameName. The manager adds its own
// namespace (--namespace) to whatever the flag says.
const DefaultReservedNamespaces = "default,kube-*,liqo,liqo-tenant-*,spillway-*,flux-system,external-secrets,cert-manager," +
	"monitoring,prometheus,grafana,loki,observability,ingress-nginx,istio-system,linkerd,kyverno,gatekeeper-system,velero,local-path-storage"

// ReservedNamespaces are namespace names a consumer may not claim for a twin:
// exact names and prefixes (written "prefix*").
type ReservedNamespaces struct {
	exact    map[string]bool
	prefixes []string
}

// ParseReservedNamespaces reads a comma-separated list of exact names and
// "prefix*" patterns; blanks around entries and empty entries are ignored.
func ParseReservedNamespaces(list string) (ReservedNamespaces, error) {
	r := ReservedNamespaces{exact: map[string]bool{}}
	for entry := range strings.SplitSeq(list, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		if err := r.add(entry); err != nil {
			return ReservedNamespaces{}, err
		}
	}
	return r, nil
}

// add records one entry, or says why it is not a name or a prefix.
func (r *ReservedNamespaces) add(entry string) error {
	prefix, isPrefix := strings.CutSuffix(entry, "*")
	switch {
	case isPrefix && prefix == "":
		return fmt.Errorf("--reserved-namespaces entry %q reserves every name: give a prefix before the *", entry)
	case isPrefix:
		// A valid prefix is one that starts a valid name: test it with a letter after.
		if errs := validation.IsDNS1123Label(prefix + "a"); len(errs) > 0 || strings.Contains(prefix, "*") {
			return fmt.Errorf("--reserved-namespaces entry %q is not a namespace prefix followed by *: use lowercase letters, digits and '-', with one * at the end", entry)
		}
		r.prefixes = append(r.prefixes, prefix)
	default:
		if errs := validation.IsDNS1123Label(entry); len(errs) > 0 {
			return fmt.Errorf("--reserved-namespaces entry %q is not a namespace name: %s; a prefix ends with *", entry, strings.Join(errs, "; "))
		}
		r.exact[entry] = true
	}
	return nil
}

// With returns r with one more exact name (the manager's own namespace).
func (r ReservedNamespaces) With(name string) ReservedNamespaces {
	out := ReservedNamespaces{exact: map[string]bool{name: true}, prefixes: r.prefixes}
	for n := range r.exact {
		out.exact[n] = true
	}
	return out
}

// Reserves reports whether name is reserved, and the entry that reserves it.
func (r ReservedNamespaces) Reserves(name string) (entry string, reserved bool) {
	if r.exact[name] {
		return name, true
	}
	for _, p := range r.prefixes {
		if strings.HasPrefix(name, p) {
			return p + "*", true
		}
	}
	return "", false
}
