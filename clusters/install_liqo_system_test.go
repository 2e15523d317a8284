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

package clusters_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Seed 004 installs into liqo-system and troubleshoots with
//
//	kubectl logs -n liqo-system -l app.kubernetes.io/component=controller-manager
//
// kustomize/overlays/liqo-system must put everything there, and nothing may
// still point at liqo.
func TestLiqoSystemOverlay(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join(root, "kustomize", "overlays", "liqo-system"))
	base := build(t, filepath.Join(root, "kustomize", "default"))
	g.Expect(b.kinds()).To(Equal(base.kinds()), "the overlay moves the install, it does not change it")

	b.find(t, "Namespace", "", "liqo-system")
	for _, r := range b.res.Resources() {
		if r.GetKind() == "Namespace" {
			g.Expect(r.GetName()).To(Equal("liqo-system"))
			continue
		}
		if ns := r.GetNamespace(); ns != "" {
			g.Expect(ns).To(Equal("liqo-system"), "%s %s", r.GetKind(), r.GetName())
		}
		// No field anywhere may still name the liqo namespace (the CRD
		// category "liqo", for kubectl get liqo, and the virtual
		// StorageClass liqo, are not namespaces).
		j, err := r.MarshalJSON()
		g.Expect(err).NotTo(HaveOccurred())
		var obj any
		g.Expect(json.Unmarshal(j, &obj)).To(Succeed())
		for _, path := range stringsEqualTo(obj, "liqo", "") {
			if r.GetKind() == "StorageClass" && path == ".metadata.name" {
				continue
			}
			g.Expect(path).To(HaveSuffix(".spec.names.categories[0]"), "%s %s: %s is still liqo", r.GetKind(), r.GetName(), path)
		}
	}

	var dep appsv1.Deployment
	mustDecodeStrict(t, b.find(t, "Deployment", "liqo-system", "spillway-controller"), &dep)
	g.Expect(dep.Spec.Template.Labels).To(HaveKeyWithValue("app.kubernetes.io/component", "controller-manager"), "the seed's kubectl logs -l selector")
	g.Expect(dep.Spec.Selector.MatchLabels).To(HaveKeyWithValue("app.kubernetes.io/component", "controller-manager"))
	c := dep.Spec.Template.Spec.Containers[0]
	g.Expect(c.Args).To(ContainElement("--namespace=$(POD_NAMESPACE)"))
	env := expectArgVarsInEnv(g, c)
	g.Expect(env["POD_NAMESPACE"].ValueFrom).To(HaveField("FieldRef.FieldPath", "metadata.namespace"))

	var crb rbacv1.ClusterRoleBinding
	mustDecodeStrict(t, b.find(t, "ClusterRoleBinding", "", "spillway-controller"), &crb)
	g.Expect(crb.Subjects).To(ConsistOf(rbacv1.Subject{Kind: "ServiceAccount", Name: "spillway-controller", Namespace: "liqo-system"}))
	b.find(t, "Service", "liqo-system", "spillway-webhook")

	// A ForeignCluster that leaves out credentialsSecretRef.namespace finds
	// its Secret next to the manager.
	var crd apiextensionsv1.CustomResourceDefinition
	mustDecodeStrict(t, b.find(t, "CustomResourceDefinition", "", "foreignclusters.discovery.liqo.io"), &crd)
	for _, v := range crd.Spec.Versions {
		ns := v.Schema.OpenAPIV3Schema.Properties["spec"].Properties["credentialsSecretRef"].Properties["namespace"]
		g.Expect(ns.Default).NotTo(BeNil())
		g.Expect(string(ns.Default.Raw)).To(Equal(`"liqo-system"`), v.Name)
	}
}

// An install overlay on top of it: the manager's identity ConfigMap sits
// next to it, and every key the Deployment reads is there.
func TestLiqoSystemInstallExample(t *testing.T) {
	g := NewWithT(t)
	b := build(t, filepath.Join("examples", "liqo-system-install"))
	var cm corev1.ConfigMap
	mustDecodeStrict(t, b.find(t, "ConfigMap", "liqo-system", "spillway-cluster-identity"), &cm)
	var dep appsv1.Deployment
	mustDecodeStrict(t, b.find(t, "Deployment", "liqo-system", "spillway-controller"), &dep)
	for _, e := range dep.Spec.Template.Spec.Containers[0].Env {
		if ref := e.ValueFrom; ref != nil && ref.ConfigMapKeyRef != nil {
			g.Expect(ref.ConfigMapKeyRef.Name).To(Equal(cm.Name))
			g.Expect(cm.Data).To(HaveKey(ref.ConfigMapKeyRef.Key), "env %s", e.Name)
		}
	}
}

// stringsEqualTo returns the paths of every string in v equal to s.
func stringsEqualTo(v any, s, path string) []string {
	var out []string
	switch v := v.(type) {
	case string:
		if v == s {
			out = append(out, path)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, stringsEqualTo(v[k], s, path+"."+k)...)
		}
	case []any:
		for i, e := range v {
			out = append(out, stringsEqualTo(e, s, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}
