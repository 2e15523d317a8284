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
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// The offloaded namespace of clusters/rome/config, its workload, and the
// objects External Secrets makes of milan's identity for rome.
const (
	demoNamespace = "liqo-demo"
	nginxReplicas = 1
	credentials   = "milan-credentials"
	storeKey      = "spillway-milan-identity-rome"
)

// appliedLayers are the Kustomizations whose applies the suite inspects:
// every one but flux-system, which applies the Kustomizations themselves.
var appliedLayers = []string{"spillway-crds", "fleet-secrets", "spillway-install", "spillway-config"}

var _ = Describe("the fleet on real Flux and External Secrets", Ordered, func() {
	var initial string         // the fleet's commit the lab started from
	var prunedTwin string      // milan's twin of rome's liqo-demo, once pruned
	var twinGone <-chan string // how long after the prune commit milan's twin was first seen gone

	BeforeAll(func(ctx context.Context) {
		var err error
		initial, err = gitops.Repo.Head(ctx)
		Expect(err).NotTo(HaveOccurred())
	})

	It("makes every layer Ready in dependsOn order, spillway-config only once every peering, offer and offloading is", func(ctx context.Context) {
		readyAt := map[string]map[string]time.Duration{}
		var mu sync.Mutex
		errs := make([]error, 2)
		var wg sync.WaitGroup
		wg.Go(func() {
			defer GinkgoRecover()
			syncCredentialsOnceStored(ctx)
		})
		for i, c := range []*lab.Cluster{rome, milan} {
			readyAt[c.Name] = map[string]time.Duration{}
			wg.Go(func() {
				errs[i] = framework.WaitKustomizationsReady(ctx, c, framework.FleetKustomizations, func(name string) {
					mu.Lock()
					defer mu.Unlock()
					readyAt[c.Name][name] = time.Since(pushed)
				})
			})
		}
		wg.Wait()
		Expect(errors.Join(errs...)).To(Succeed())
		for _, c := range []string{"rome", "milan"} {
			at := readyAt[c]
			GinkgoWriter.Printf("%s: Ready after the push: %v\n", c, at)
			Expect(at["spillway-crds"]).To(BeNumerically("<=", at["spillway-install"]), c)
			Expect(at["spillway-install"]).To(BeNumerically("<=", at["spillway-config"]), c)
			Expect(at["fleet-secrets"]).To(BeNumerically("<=", at["spillway-config"]), c)
		}

		// The health checks that made spillway-config wait are git's, on every Spillway kind of the folder.
		Expect(healthChecked(ctx, romeC)).To(ConsistOf("ForeignCluster/milan", "NamespaceOffloading/liqo-demo/offloading"))
		Expect(healthChecked(ctx, milanC)).To(ConsistOf("ResourceOffer/liqo/rome"))

		// milan's identity for rome crossed through the store, carried by External Secrets alone.
		stored := &corev1.Secret{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: framework.StoreNamespace, Name: storeKey}, stored)).To(Succeed())
		got := &corev1.Secret{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: credentials}, got)).To(Succeed())
		Expect(got.OwnerReferences).To(ContainElement(HaveField("Kind", "ExternalSecret")))
		Expect(got.Data).To(HaveKey(sharingv1alpha1.IdentityTokenKey))
		Expect(got.Data[sharingv1alpha1.IdentityTokenKey]).To(Equal(stored.Data[sharingv1alpha1.IdentityTokenKey]))

		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(8*time.Minute))

	It("applies nothing on a forced reconcile once the controllers have run: every object unchanged, flux diff empty", func(ctx context.Context) {
		for _, c := range []*lab.Cluster{rome, milan} {
			cl := clientOf(c)
			offset := framework.LogOffset(c, framework.KustomizeControllerProcess)
			for _, name := range appliedLayers {
				reconcile(ctx, cl, framework.KustomizationGVK, name)
			}
			objects := 0
			for _, name := range appliedLayers {
				outputs, err := framework.ApplyOutputs(c, name, offset)
				Expect(err).NotTo(HaveOccurred())
				Expect(outputs).NotTo(BeEmpty(), "%s: kustomize-controller logged no apply of %s", c.Name, name)
				for _, out := range outputs {
					Expect(changed(out)).To(BeEmpty(), "%s: %s applied changes after the controllers ran", c.Name, name)
					objects += len(out)
				}
				code, out := fluxDiff(ctx, c, name)
				Expect(code).To(BeZero(), "%s: flux diff kustomization %s:\n%s", c.Name, name, out)
			}
			GinkgoWriter.Printf("%s: %d objects unchanged on a forced reconcile of %v\n", c.Name, objects, appliedLayers)
		}
	}, SpecTimeout(4*time.Minute))

	It("sees a hand edit in flux diff and reverts it on the next reconcile", func(ctx context.Context) {
		nginx := &appsv1.Deployment{}
		key := client.ObjectKey{Namespace: demoNamespace, Name: "nginx"}
		scale := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, nginxReplicas+1))
		Expect(romeC.Patch(ctx, &appsv1.Deployment{ObjectMeta: nginxMeta()}, client.RawPatch(types.MergePatchType, scale), client.FieldOwner("kubectl-edit"))).To(Succeed())
		code, out := fluxDiff(ctx, rome, "spillway-config")
		Expect(code).To(Equal(1), "flux diff exits 1 on drift:\n%s", out)
		Expect(out).To(ContainSubstring("Deployment/liqo-demo/nginx"))
		GinkgoWriter.Printf("flux diff after the hand edit:\n%s\n", out)

		offset := framework.LogOffset(rome, framework.KustomizeControllerProcess)
		reconcile(ctx, romeC, framework.KustomizationGVK, "spillway-config")
		outputs, err := framework.ApplyOutputs(rome, "spillway-config", offset)
		Expect(err).NotTo(HaveOccurred())
		Expect(outputs).NotTo(BeEmpty())
		Expect(changed(outputs[len(outputs)-1])).To(Equal([]string{"Deployment/liqo-demo/nginx configured"}))
		Expect(romeC.Get(ctx, key, nginx)).To(Succeed())
		Expect(*nginx.Spec.Replicas).To(BeEquivalentTo(nginxReplicas))
		code, out = fluxDiff(ctx, rome, "spillway-config")
		Expect(code).To(BeZero(), "flux diff after the revert:\n%s", out)
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}, SpecTimeout(3*time.Minute))

	It("prunes rome's config and unpeers cleanly when the folder is removed in git", func(ctx context.Context) {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: demoNamespace, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
		twin := no.Status.RemoteNamespaceName
		Expect(twin).NotTo(BeEmpty())

		start := time.Now()
		sha := commitRemoval(ctx, "rome")
		twinGone = whenGone(milanC, &corev1.Namespace{ObjectMeta: meta("", twin)}, start, 4*time.Minute)
		syncFlux(ctx, rome, sha)
		Eventually(func(g Gomega) {
			for _, o := range []client.Object{
				&discoveryv1alpha1.ForeignCluster{ObjectMeta: meta("", "milan")},
				&corev1.Node{ObjectMeta: meta("", "liqo-milan")},
				&corev1.Namespace{ObjectMeta: meta("", demoNamespace)},
				&corev1.Secret{ObjectMeta: meta("liqo", credentials)},
			} {
				g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKeyFromObject(o), o))).To(BeTrue(), "rome: %T %s still exists", o, o.GetName())
			}
			_, err := framework.Kustomization(ctx, romeC, "spillway-config")
			g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "rome: Kustomization spillway-config still exists")
			// milan runs nothing for rome any more.
			pods := &corev1.PodList{}
			g.Expect(milanC.List(ctx, pods, client.InNamespace(twin))).To(Succeed())
			g.Expect(pods.Items).To(BeEmpty(), "milan: pods left in the twin namespace %s", twin)
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("rome pruned and unpeered %s after the commit\n", time.Since(start).Round(100*time.Millisecond))
		AddReportEntry("rome pruned and unpeered after the commit in", time.Since(start).Round(100*time.Millisecond).String())
		// milan's side is git's too, and unchanged: the offer stays Ready,
		// and milan's Flux applies the same commit and stays Ready. Polled:
		// milan reconciles the new revision on its own schedule, and while
		// it does its Kustomizations are briefly not Ready (reconciling, or
		// waiting for a dependency), which a single read can land on.
		offer := &sharingv1alpha1.ResourceOffer{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
		Expect(offer.DeletionTimestamp).To(BeNil(), "milan: the offer to rome is being deleted")
		syncFlux(ctx, milan, sha)
		Eventually(func(g Gomega) {
			g.Expect(framework.KustomizationReady(ctx, milanC, "spillway-config", sha)).To(Succeed())
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
			g.Expect(apimeta.IsStatusConditionTrue(offer.Status.Conditions, sharingv1alpha1.ReadyCondition)).To(BeTrue(),
				"milan: the offer to rome is not Ready: %v", offer.Status.Conditions)
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		prunedTwin = twin
	}, SpecTimeout(5*time.Minute))

	// Flux deletes the ForeignCluster and the NamespaceOffloading together,
	// and the peer leaves rome's registry when unpeering begins, so the
	// offloading's finalizer may find no peer to withdraw its twin request
	// from: the ForeignCluster's finalizer withdraws rome's twin requests on
	// milan itself before it stops the peering.
	It("leaves no twin namespace on milan once rome's config is pruned", func(ctx context.Context) {
		Expect(prunedTwin).NotTo(BeEmpty(), "the prune spec did not run")
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(milanC.Get(ctx, client.ObjectKey{Name: prunedTwin}, &corev1.Namespace{}))).To(BeTrue(),
				"milan: the twin namespace %s still exists", prunedTwin)
			requests := &corev1.ConfigMapList{}
			g.Expect(milanC.List(ctx, requests, client.MatchingLabels{sharingv1alpha1.TwinRequestLabel: "true"})).To(Succeed())
			g.Expect(requests.Items).To(BeEmpty(), "milan: twin-namespace requests left")
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())
		var gone string
		Eventually(twinGone).WithContext(ctx).WithTimeout(5*time.Second).Should(Receive(&gone), "the poller of the twin namespace gave up")
		GinkgoWriter.Printf("milan's twin namespace %s gone %s after the prune commit\n", prunedTwin, gone)
		AddReportEntry("milan's twin namespace gone after the prune commit in", gone)
	}, SpecTimeout(2*time.Minute))

	It("peers again when rome's config comes back in git, and applies nothing more", func(ctx context.Context) {
		start := time.Now()
		sha, err := gitops.Repo.Restore(ctx, "Bring back rome's config", initial, "clusters/rome")
		Expect(err).NotTo(HaveOccurred())
		syncFlux(ctx, rome, sha)
		Expect(framework.WaitKustomizationsReady(ctx, rome, framework.FleetKustomizations, nil)).To(Succeed())
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("rome peered and offloaded again %s after the commit\n", time.Since(start).Round(100*time.Millisecond))
		AddReportEntry("rome peered again after the commit in", time.Since(start).Round(100*time.Millisecond).String())
		for _, c := range []*lab.Cluster{rome, milan} {
			code, out := fluxDiff(ctx, c, "spillway-config")
			Expect(code).To(BeZero(), "%s: flux diff kustomization spillway-config:\n%s", c.Name, out)
			finished, failed, err := framework.FluxReconciliations(c)
			Expect(err).NotTo(HaveOccurred())
			GinkgoWriter.Printf("%s: %d Kustomization reconciliations finished, %d errors logged\n", c.Name, finished, failed)
			AddReportEntry(c.Name+": Kustomization reconciliations finished / errors", fmt.Sprintf("%d / %d", finished, failed))
		}
	}, SpecTimeout(4*time.Minute))

	// milan's PushSecret pushes the identity property by property: External
	// Secrets' Kubernetes provider deletes only properties, so pushed whole
	// it stayed terminating once pruned, and milan's config could not return.
	// Removing the provider's config first withdraws rome's credentials at
	// once, but not the offer: it waits, ConsumerStillHasPods, until rome
	// unpeers and so drains what it runs on milan.
	It("converges when the configs come back in the reverse order, the consumer's before the provider's", func(ctx context.Context) {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		Expect(romeC.Get(ctx, client.ObjectKey{Namespace: demoNamespace, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
		twin := no.Status.RemoteNamespaceName
		Expect(twin).NotTo(BeEmpty())
		start := time.Now()
		sha := commitRemoval(ctx, "milan")
		syncFlux(ctx, milan, sha)
		Eventually(func(g Gomega) {
			// The PushSecret withdrew every property and is gone, not terminating.
			g.Expect(apierrors.IsNotFound(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "identity-rome"}, pushSecretObject()))).To(BeTrue(), "milan: the PushSecret identity-rome still exists")
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKey{Namespace: framework.StoreNamespace, Name: storeKey}, &corev1.Secret{}))).To(BeTrue(), "the store still holds %s", storeKey)
			offer := &sharingv1alpha1.ResourceOffer{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, offer)).To(Succeed())
			g.Expect(offer.DeletionTimestamp).NotTo(BeNil())
			g.Expect(apimeta.FindStatusCondition(offer.Status.Conditions, sharingv1alpha1.ReadyCondition)).To(HaveField("Reason", "ConsumerStillHasPods"))
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("milan's PushSecret and the store's key %s withdrawn %s after the commit; the offer waits for rome's pods\n", storeKey, time.Since(start).Round(100*time.Millisecond))
		// rome's workload on milan is untouched meanwhile.
		pods := &corev1.PodList{}
		Expect(milanC.List(ctx, pods, client.InNamespace(twin))).To(Succeed())
		Expect(pods.Items).To(HaveLen(nginxReplicas), "milan: pods in the twin namespace %s", twin)
		Expect(pods.Items[0].DeletionTimestamp).To(BeNil())

		start = time.Now()
		sha = commitRemoval(ctx, "rome")
		syncFlux(ctx, rome, sha)
		Eventually(func(g Gomega) {
			g.Expect(apierrors.IsNotFound(milanC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "rome"}, &sharingv1alpha1.ResourceOffer{}))).To(BeTrue(), "milan: the offer to rome still exists")
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue(), "rome: the ForeignCluster milan still exists")
			// Brought back into a namespace still terminating, the config's
			// apply fails its dry-run as a whole and Flux retries only at its
			// 10 m interval.
			g.Expect(apierrors.IsNotFound(romeC.Get(ctx, client.ObjectKey{Name: demoNamespace}, &corev1.Namespace{}))).To(BeTrue(), "rome: Namespace %s still exists", demoNamespace)
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("rome unpeered, its config pruned and milan's offer gone %s after rome's config was removed\n", time.Since(start).Round(100*time.Millisecond))

		start = time.Now()
		sha, err := gitops.Repo.Restore(ctx, "Bring back rome's config", initial, "clusters/rome")
		Expect(err).NotTo(HaveOccurred())
		syncFlux(ctx, rome, sha)
		// rome's peering is applied and waits: no credentials in the store yet.
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{})).To(Succeed())
			g.Expect(framework.KustomizationReady(ctx, romeC, "spillway-config", "")).NotTo(Succeed())
		}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(time.Second).Should(Succeed())

		sha, err = gitops.Repo.Restore(ctx, "Bring back milan's config", initial, "clusters/milan")
		Expect(err).NotTo(HaveOccurred())
		syncFlux(ctx, milan, sha)
		milanBack := time.Now()
		syncCredentialsOnceStored(ctx)
		for _, c := range []*lab.Cluster{milan, rome} {
			Expect(framework.WaitKustomizationsReady(ctx, c, framework.FleetKustomizations, nil)).To(Succeed())
			GinkgoWriter.Printf("%s: every Kustomization Ready %s after milan's config came back\n", c.Name, time.Since(milanBack).Round(100*time.Millisecond))
		}
		Eventually(func(g Gomega) { expectOffloaded(ctx, g) }).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
		GinkgoWriter.Printf("reverse order: rome offloaded again %s after its config came back, %s after milan's\n",
			time.Since(start).Round(100*time.Millisecond), time.Since(milanBack).Round(100*time.Millisecond))
		AddReportEntry("reverse order: rome offloaded again after milan's config came back in", time.Since(milanBack).Round(100*time.Millisecond).String())
	}, SpecTimeout(8*time.Minute))

	stalledOffloadingSpec(&initial)

	uninstallSpec()
})

// whenGone polls obj on c (every 200 ms, for at most limit) from now on,
// and sends once how long after since it was first not found; the channel
// closes without a value if it never was.
func whenGone(c client.Client, obj client.Object, since time.Time, limit time.Duration) <-chan string {
	out := make(chan string, 1)
	go func() {
		defer GinkgoRecover()
		defer close(out)
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			if err := c.Get(ctx, client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object)); apierrors.IsNotFound(err) {
				out <- time.Since(since).Round(100 * time.Millisecond).String()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// healthChecked lists the health checks of a cluster's live spillway-config.
func healthChecked(ctx context.Context, c client.Client) []string {
	ks, err := framework.Kustomization(ctx, c, "spillway-config")
	Expect(err).NotTo(HaveOccurred())
	checks, _, _ := unstructured.NestedSlice(ks.Object, "spec", "healthChecks")
	var out []string
	for _, hc := range checks {
		m := hc.(map[string]any)
		ref := fmt.Sprint(m["kind"], "/")
		if ns, ok := m["namespace"]; ok {
			ref += fmt.Sprint(ns, "/")
		}
		out = append(out, ref+fmt.Sprint(m["name"]))
	}
	return out
}

// reconcile asks Flux to reconcile an object now and waits until it has,
// Ready.
func reconcile(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, name string) {
	token, err := framework.RequestReconcile(ctx, c, gvk, name)
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error {
		if err := framework.Handled(ctx, c, gvk, name, token); err != nil {
			return err
		}
		if gvk == framework.KustomizationGVK {
			return framework.KustomizationReady(ctx, c, name, "")
		}
		return nil
	}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(500 * time.Millisecond).Should(Succeed())
}

// syncFlux makes c's Flux fetch the fleet and apply its flux/ folder at sha,
// as `flux reconcile kustomization flux-system --with-source` does.
func syncFlux(ctx context.Context, c *lab.Cluster, sha string) {
	cl := clientOf(c)
	_, err := framework.RequestReconcile(ctx, cl, framework.GitRepositoryGVK, "fleet")
	Expect(err).NotTo(HaveOccurred())
	Eventually(func() error {
		if _, err := framework.RequestReconcile(ctx, cl, framework.KustomizationGVK, framework.BootstrapKustomization); err != nil {
			return err
		}
		return framework.KustomizationReady(ctx, cl, framework.BootstrapKustomization, sha)
	}).WithContext(ctx).WithTimeout(time.Minute).WithPolling(2 * time.Second).Should(Succeed())
}

// commitRemoval removes a cluster's config folder and the Kustomization that
// applies it from the fleet, in one commit, as a user retiring it would.
func commitRemoval(ctx context.Context, cluster string) string {
	sha, err := gitops.Repo.Commit(ctx, "Remove "+cluster+"'s config", func(dir string) error {
		if err := os.RemoveAll(filepath.Join(dir, "clusters", cluster, "config")); err != nil {
			return err
		}
		path := filepath.Join(dir, "clusters", cluster, "flux", "spillway.yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		docs := strings.Split(string(data), "\n---\n")
		kept := docs[:0]
		for _, d := range docs {
			if !strings.Contains(d, "name: spillway-config\n") {
				kept = append(kept, d)
			}
		}
		if len(kept) != len(docs)-1 {
			return fmt.Errorf("%s: expected one Kustomization spillway-config, found %d", path, len(docs)-len(kept))
		}
		return os.WriteFile(path, []byte(strings.Join(kept, "\n---\n")), 0o644)
	})
	Expect(err).NotTo(HaveOccurred())
	return sha
}

// fluxDiff runs `flux diff kustomization NAME --path` on the fleet's clone
// and returns its exit code (0 no drift, 1 drift) and output.
func fluxDiff(ctx context.Context, c *lab.Cluster, name string) (int, string) {
	ks, err := framework.Kustomization(ctx, clientOf(c), name)
	Expect(err).NotTo(HaveOccurred())
	path, _, _ := unstructured.NestedString(ks.Object, "spec", "path")
	out, err := framework.FluxCLI(ctx, gitops.Tools, c, "diff", "kustomization", name, "--progress-bar=false", "--path", filepath.Join(gitops.Repo.Dir(), path))
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), out
	}
	Expect(err).NotTo(HaveOccurred(), out)
	return 0, out
}

// changed lists the objects of an apply output that were not unchanged.
func changed(output map[string]string) []string {
	var out []string
	for obj, action := range output {
		if action != "unchanged" {
			out = append(out, obj+" "+action)
		}
	}
	sort.Strings(out)
	return out
}

func clientOf(c *lab.Cluster) client.Client {
	if c == rome {
		return romeC
	}
	return milanC
}

// pushSecretObject is an empty PushSecret to Get into.
func pushSecretObject() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1alpha1", Kind: "PushSecret"})
	return u
}
