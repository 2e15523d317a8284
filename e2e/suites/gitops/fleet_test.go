//go:build e2e

package gitops_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/fluxcd/pkg/ssa"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

// layerObjects builds what one Flux Kustomization of clusters/<cluster>/flux
// applies: crds is ./kustomize/crd; install is the cluster's install folder
// without the CRDs (spillway-install's patch drops them); config is the
// config folder without the External Secrets objects, whose CRDs the lab
// does not install (see the package doc).
func layerObjects(cluster, layer string) []*unstructured.Unstructured {
	var objs []*unstructured.Unstructured
	var err error
	switch layer {
	case "crds":
		objs, err = framework.Build(filepath.Join(repoRoot, "kustomize", "crd"))
	case "install":
		objs, err = framework.Build(filepath.Join(repoRoot, "clusters", cluster, "install"))
		objs = slices.DeleteFunc(objs, func(o *unstructured.Unstructured) bool { return o.GetKind() == "CustomResourceDefinition" })
	case "config":
		objs, err = framework.LabObjects(filepath.Join(repoRoot, "clusters", cluster, "config"))
	default:
		err = fmt.Errorf("unknown layer %q", layer)
	}
	Expect(err).NotTo(HaveOccurred())
	Expect(objs).NotTo(BeEmpty(), "%s: %s layer", cluster, layer)
	return objs
}

func resourceManager(c *lab.Cluster) *ssa.ResourceManager {
	rm, _, err := framework.ResourceManager(c)
	Expect(err).NotTo(HaveOccurred())
	return rm
}

// applyStaged is what kustomize-controller does with a Kustomization: CRDs
// and namespaces first, then every other object in one batch, in ssa's
// order.
func applyStaged(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) (*ssa.ChangeSet, error) {
	return resourceManager(c).ApplyAllStaged(ctx, deepCopies(objs), ssa.DefaultApplyOptions())
}

// applyInReverse applies the objects one by one in the reverse of kustomize's
// order, in passes until every one has applied: an object whose namespace
// does not exist yet fails, and is retried in the next pass as Flux retries
// a failed Kustomization.
func applyInReverse(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) (order []string, err error) {
	rm := resourceManager(c)
	pending := deepCopies(objs)
	slices.Reverse(pending)
	err = framework.Poll(ctx, func(ctx context.Context) error {
		var failed []*unstructured.Unstructured
		var errs []error
		for _, o := range pending {
			if _, err := rm.Apply(ctx, o.DeepCopy(), ssa.DefaultApplyOptions()); err != nil {
				failed, errs = append(failed, o), append(errs, err)
				continue
			}
			order = append(order, key(o))
		}
		pending = failed
		return errors.Join(errs...)
	})
	return order, err
}

// drift returns, for every object that the SSA dry-run of its manifest would
// change, what differs; empty means Flux would apply nothing.
func drift(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) []string {
	rm := resourceManager(c)
	var out []string
	for _, o := range deepCopies(objs) {
		entry, live, merged, err := rm.Diff(ctx, o, ssa.DefaultDiffOptions())
		Expect(err).NotTo(HaveOccurred(), "dry-run of %s", key(o))
		if entry.Action == ssa.UnchangedAction {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s:\n--- live\n%s\n--- after apply\n%s", entry.Action, key(o), toYAML(live), toYAML(merged)))
	}
	return out
}

// kubectlDiff runs `kubectl diff -k` on a cluster's config folder, through a
// kustomization that deletes the External Secrets objects (the lab has no
// CRDs for them) the way spillway-install's patch deletes CRDs. It returns
// kubectl's exit code and output.
func kubectlDiff(ctx context.Context, c *lab.Cluster) (int, string) {
	dir, err := os.MkdirTemp("", "gitops-diff-")
	Expect(err).NotTo(HaveOccurred())
	defer os.RemoveAll(dir)
	rel, err := filepath.Rel(dir, filepath.Join(repoRoot, "clusters", c.Name, "config"))
	Expect(err).NotTo(HaveOccurred())
	var patches []map[string]any
	for _, kind := range []string{"ExternalSecret", "PushSecret"} {
		patches = append(patches, map[string]any{
			"target": map[string]string{"group": "external-secrets.io", "kind": kind},
			"patch":  "$patch: delete\napiVersion: external-secrets.io/v1\nkind: " + kind + "\nmetadata:\n  name: any\n",
		})
	}
	k, err := yaml.Marshal(map[string]any{"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
		"resources": []string{filepath.ToSlash(rel)}, "patches": patches})
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(filepath.Join(dir, "kustomization.yaml"), k, 0o600)).To(Succeed())

	kubectl := filepath.Join(c.LabBinaries().KubeDir, "kubectl")
	out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", c.Kubeconfig(), "diff", "-k", dir).CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), string(out)
	}
	Expect(err).NotTo(HaveOccurred(), string(out))
	return 0, string(out)
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

func deepCopies(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	out := make([]*unstructured.Unstructured, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.DeepCopy())
	}
	return out
}

func key(o *unstructured.Unstructured) string {
	if o.GetNamespace() == "" {
		return o.GetKind() + "/" + o.GetName()
	}
	return o.GetKind() + "/" + o.GetNamespace() + "/" + o.GetName()
}

func toYAML(o *unstructured.Unstructured) string {
	if o == nil {
		return "<none>"
	}
	out, err := yaml.Marshal(o.Object)
	if err != nil {
		return err.Error()
	}
	return string(out)
}
