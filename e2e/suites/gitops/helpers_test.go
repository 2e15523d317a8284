//go:build e2e

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

package gitops_test

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	"github.com/fluxcd/pkg/ssa"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

// syncCredentialsOnceStored waits until milan's PushSecret has put every
// property of rome's identity in the store, then asks External Secrets to
// sync rome's ExternalSecret now, as `kubectl annotate externalsecret
// milan-credentials force-sync=$(date +%s)` would. Unattended, an
// ExternalSecret that found no key is retried on External Secrets' failure
// backoff (1 s doubling up to 7 min; no flag or field sets it), so rome's
// config turned Ready about a minute after the key was there: 1m31s after
// the push against milan's 31 s, and 1m8s after milan's config came back in
// the reverse-order spec. What these specs check is Spillway's order and the
// identity's path through the store, not that backoff; External Secrets
// still carries the identity alone.
func syncCredentialsOnceStored(ctx context.Context) {
	Eventually(func(g Gomega) {
		stored := &corev1.Secret{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: framework.StoreNamespace, Name: storeKey}, stored)).To(Succeed())
		for _, property := range sharingv1alpha1.IdentityKeys() {
			g.Expect(stored.Data).To(HaveKey(property), "the store's key %s", storeKey)
		}
		es := &unstructured.Unstructured{}
		es.SetGroupVersionKind(schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1", Kind: "ExternalSecret"})
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: credentials}, es)).To(Succeed())
		g.Expect(framework.ForceSync(ctx, romeC, es)).To(Succeed())
	}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
}

func meta(namespace, name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: namespace, Name: name}
}

func nginxMeta() metav1.ObjectMeta { return meta(demoNamespace, "nginx") }

// expectOffloaded checks rome's liqo-demo: nginx's pods run where the policy
// allows, on liqo-milan (nginx asks for a virtual node), and milan runs the
// same pods in the twin namespace the NamespaceOffloading reports.
func expectOffloaded(ctx context.Context, g Gomega) {
	pods := expectPodsWherePolicySays(ctx, g, romeC, demoNamespace, nginxReplicas)
	for _, p := range pods {
		g.Expect(p.Spec.NodeName).To(Equal("liqo-milan"), "pod %s", p.Name)
	}
	no := &offloadingv1alpha1.NamespaceOffloading{}
	g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: demoNamespace, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
	g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
	expectRunningIn(ctx, g, milan, milanC, no.Status.RemoteNamespaceName, names(pods))
}

// expectPodsWherePolicySays checks every pod of an offloaded namespace: it
// runs (none Pending), on a node that the NamespaceOffloading's pod strategy
// and cluster selector allow, and it is one of the Deployments' replicas.
func expectPodsWherePolicySays(ctx context.Context, g Gomega, c client.Client, namespace string, replicas int) []corev1.Pod {
	no := &offloadingv1alpha1.NamespaceOffloading{}
	g.Expect(c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
	p := policies.PlacementFor(no.Spec.PodOffloadingStrategy, no.Spec.ClusterSelector)
	allowed, err := nodeaffinity.NewNodeSelector(&corev1.NodeSelector{NodeSelectorTerms: p.NodeSelectorTerms})
	g.Expect(err).NotTo(HaveOccurred())

	pods := &corev1.PodList{}
	g.Expect(c.List(ctx, pods, client.InNamespace(namespace))).To(Succeed())
	live := slices.DeleteFunc(pods.Items, func(p corev1.Pod) bool { return !p.DeletionTimestamp.IsZero() })
	g.Expect(live).To(HaveLen(replicas), "pods in %s", namespace)
	for _, pod := range live {
		g.Expect(pod.Status.Phase).To(Equal(corev1.PodRunning), "pod %s/%s on node %q", pod.Namespace, pod.Name, pod.Spec.NodeName)
		node := &corev1.Node{}
		g.Expect(c.Get(ctx, client.ObjectKey{Name: pod.Spec.NodeName}, node)).To(Succeed())
		g.Expect(allowed.Match(node)).To(BeTrue(), "pod %s/%s runs on %s, which %s's NamespaceOffloading does not allow", pod.Namespace, pod.Name, node.Name, namespace)
	}
	return live
}

// expectRunningIn checks that the provider runs exactly the named pods in
// its twin namespace, on its own nodes.
func expectRunningIn(ctx context.Context, g Gomega, provider *lab.Cluster, c client.Client, twin string, names []string) {
	pods := &corev1.PodList{}
	g.Expect(c.List(ctx, pods, client.InNamespace(twin))).To(Succeed())
	var got []string
	for _, p := range pods.Items {
		g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "%s: pod %s/%s", provider.Name, twin, p.Name)
		g.Expect(p.Spec.NodeName).To(HavePrefix(provider.Name+"-worker-"), "%s: pod %s/%s", provider.Name, twin, p.Name)
		got = append(got, p.Name)
	}
	g.Expect(got).To(ConsistOf(names), "%s: pods in %s", provider.Name, twin)
}

func names(pods []corev1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// layerObjects builds what one Flux Kustomization of clusters/<cluster>/flux
// applies, for specs that act on the objects directly: crds is
// ./kustomize/crd; install is the cluster's install folder without the CRDs
// (spillway-install's patch drops them); config is the config folder.
func layerObjects(cluster, layer string) []*unstructured.Unstructured {
	var dir string
	switch layer {
	case "crds":
		dir = filepath.Join(repoRoot, "kustomize", "crd")
	case "install", "config":
		dir = filepath.Join(repoRoot, "clusters", cluster, layer)
	default:
		Fail("unknown layer " + layer)
	}
	objs, err := framework.Build(dir)
	Expect(err).NotTo(HaveOccurred())
	if layer == "install" {
		objs = slices.DeleteFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "CustomResourceDefinition" })
	}
	Expect(objs).NotTo(BeEmpty(), "%s: %s layer", cluster, layer)
	return objs
}

func resourceManager(c *lab.Cluster) *ssa.ResourceManager {
	rm, _, err := framework.ResourceManager(c)
	Expect(err).NotTo(HaveOccurred())
	return rm
}

func deepCopies(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.DeepCopy())
	}
	return out
}
