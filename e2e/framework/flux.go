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

package framework

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fluxcd/pkg/ssa"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// Names of the GitOps processes each lab cluster runs, and Flux's namespace.
const (
	SourceControllerProcess    = "source-controller"
	KustomizeControllerProcess = "kustomize-controller"
	ExternalSecretsProcess     = "external-secrets"
	fluxNamespace              = "flux-system"
	// BootstrapKustomization is what `flux bootstrap --path=clusters/<name>/flux`
	// creates: it applies the cluster's flux/ folder from git.
	BootstrapKustomization = "flux-system"
	// labBootstrapManager is the field manager of the few objects the lab
	// applies itself: the tools' CRDs and Flux's bootstrap.
	labBootstrapManager = "spillway-lab-bootstrap"
)

// Extra ports of each cluster (framework.StartManager takes 0, 1, 5 and 9).
const (
	sourceHealthPortIndex    = 10
	sourceStoragePortIndex   = 11
	kustomizeHealthPortIndex = 12
	esoMetricsPortIndex      = 13
)

// GitOpsTools are the upstream GitOps binaries the lab runs as processes and
// the CRDs that come with them, built by hack/tools.sh.
type GitOpsTools struct {
	SourceController, KustomizeController, ExternalSecrets, Flux string
	// FluxCRDs and ExternalSecretsCRDs are directories of CRD manifests.
	FluxCRDs, ExternalSecretsCRDs string
}

// ResolveGitOpsTools builds (first time, minutes) or finds the GitOps tools.
func ResolveGitOpsTools(progress io.Writer) (GitOpsTools, error) {
	var t GitOpsTools
	for _, x := range []struct {
		name string
		dst  *string
	}{
		{"source-controller", &t.SourceController}, {"kustomize-controller", &t.KustomizeController},
		{"external-secrets", &t.ExternalSecrets}, {"flux", &t.Flux},
		{"flux-crds", &t.FluxCRDs}, {"external-secrets-crds", &t.ExternalSecretsCRDs},
	} {
		p, err := lab.Tool(x.name, progress)
		if err != nil {
			return t, err
		}
		*x.dst = p
	}
	return t, nil
}

// InstallFlux installs on c what `flux install` gives a real cluster, for
// the two controllers the fleet uses: their CRDs and source-controller and
// kustomize-controller, here processes of the lab acting with the cluster's
// admin kubeconfig (no container runtime).
func InstallFlux(ctx context.Context, c *lab.Cluster, t GitOpsTools) error {
	crds, err := readManifests(t.FluxCRDs)
	if err != nil {
		return err
	}
	if err := applyAs(ctx, c, append(crds, Namespace(fluxNamespace))); err != nil {
		return err
	}
	storage := filepath.Join(filepath.Dir(c.Kubeconfig()), "flux-artifacts")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		return err
	}
	// Flux's defaults but the addresses (loopback, per cluster), no leader
	// election (one replica) and no metrics.
	common := []string{"--enable-leader-election=false", "--metrics-addr=0", "--log-level=info", "--log-encoding=json"}
	env := []string{"KUBECONFIG=" + c.Kubeconfig(), "RUNTIME_NAMESPACE=" + fluxNamespace}
	source := append([]string{t.SourceController,
		"--health-addr=" + loopback(c, sourceHealthPortIndex),
		// kustomize-controller downloads the artifacts from this address.
		"--storage-path=" + storage, "--storage-addr=" + loopback(c, sourceStoragePortIndex), "--storage-adv-addr=" + loopback(c, sourceStoragePortIndex),
	}, common...)
	if err := c.StartExtraWithEnv(ctx, SourceControllerProcess, source, env, lab.HTTPReady("http://"+loopback(c, sourceHealthPortIndex)+"/readyz")); err != nil {
		return err
	}
	kustomize := append([]string{t.KustomizeController,
		"--health-addr=" + loopback(c, kustomizeHealthPortIndex),
		// The lab re-checks dependsOn every 5s rather than 30s, so the layers follow each other quickly.
		"--requeue-dependency=5s",
	}, common...)
	return c.StartExtraWithEnv(ctx, KustomizeControllerProcess, kustomize, env, lab.HTTPReady("http://"+loopback(c, kustomizeHealthPortIndex)+"/readyz"))
}

// InstallExternalSecrets installs on c what External Secrets' chart gives a
// real cluster: its CRDs and its controller (no webhook, no cert
// controller), a process of the lab acting with the cluster's admin kubeconfig.
func InstallExternalSecrets(ctx context.Context, c *lab.Cluster, t GitOpsTools) error {
	crds, err := readManifests(t.ExternalSecretsCRDs)
	if err != nil {
		return err
	}
	if err := applyAs(ctx, c, append(crds, Namespace(StoreCredentialsNamespace))); err != nil {
		return err
	}
	args := []string{t.ExternalSecrets,
		"--metrics-addr=" + loopback(c, esoMetricsPortIndex), "--enable-leader-election=false",
		"--loglevel=info", "--zap-time-encoding=iso8601",
	}
	env := []string{"KUBECONFIG=" + c.Kubeconfig()}
	return c.StartExtraWithEnv(ctx, ExternalSecretsProcess, args, env, lab.HTTPReady("http://"+loopback(c, esoMetricsPortIndex)+"/metrics"))
}

// loopback is 127.0.0.1 and the cluster's i-th extra port.
func loopback(c *lab.Cluster, i int) string {
	p, err := c.ExtraPort(i)
	if err != nil {
		panic(err) // the indexes are constants of this file
	}
	return "127.0.0.1:" + strconv.Itoa(p)
}

// BootstrapFlux does on c what `flux bootstrap --path=clusters/<name>/flux`
// does: the GitRepository of the fleet (from the lab's copy, which points at
// the lab's server) and the Kustomization flux-system that applies the
// cluster's flux/ folder from git. From then on, git drives the cluster.
func BootstrapFlux(ctx context.Context, c *lab.Cluster, repo *FleetRepo) error {
	source, err := readManifests(filepath.Join(repo.Dir(), "clusters", c.Name, "flux", "source.yaml"))
	if err != nil {
		return err
	}
	ks := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kustomize.toolkit.fluxcd.io/v1", "kind": "Kustomization",
		"metadata": map[string]any{"name": BootstrapKustomization, "namespace": fluxNamespace},
		"spec": map[string]any{
			"interval":  "10m",
			"path":      "./clusters/" + c.Name + "/flux",
			"prune":     true,
			"sourceRef": map[string]any{"kind": "GitRepository", "name": source[0].GetName()},
		},
	}}
	return applyAs(ctx, c, append(source, ks))
}

// StartManagerWhenInstalled waits for Flux's install layer to create the
// ConfigMap spillway-cluster-identity, then runs spillway-controller with that
// identity as the process standing in for the Deployment
// liqo/spillway-controller (kustomize/manager): the lab has no container
// runtime, so the Deployment's pod runs on a kwok node and does nothing.
func StartManagerWhenInstalled(ctx context.Context, c *lab.Cluster, extraArgs ...string) error {
	cl, err := Client(c)
	if err != nil {
		return err
	}
	cm := &corev1.ConfigMap{}
	if err := Poll(ctx, func(ctx context.Context) error {
		return cl.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "spillway-cluster-identity"}, cm)
	}); err != nil {
		return fmt.Errorf("cluster %s: waiting for Flux to apply liqo/spillway-cluster-identity: %w", c.Name, err)
	}
	id := Identity{ClusterID: cm.Data["CLUSTER_ID"], ClusterName: cm.Data["CLUSTER_NAME"]}
	if id.ClusterID == "" || id.ClusterName == "" {
		return fmt.Errorf("cluster %s: ConfigMap liqo/spillway-cluster-identity lacks CLUSTER_ID or CLUSTER_NAME", c.Name)
	}
	return StartManager(ctx, c, id, extraArgs...)
}

var kustomizationGVK = schema.GroupVersionKind{Group: "kustomize.toolkit.fluxcd.io", Version: "v1", Kind: "Kustomization"}

// Kustomization reads a Kustomization of flux-system.
func Kustomization(ctx context.Context, c client.Client, name string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(kustomizationGVK)
	return u, c.Get(ctx, client.ObjectKey{Namespace: fluxNamespace, Name: name}, u)
}

// KustomizationReady fails unless the Kustomization is Ready for its
// current generation, at the given revision when revision is not empty; the
// error carries Flux's message.
func KustomizationReady(ctx context.Context, c client.Client, name, revision string) error {
	ks, err := Kustomization(ctx, c, name)
	if err != nil {
		return err
	}
	observed, _, _ := unstructured.NestedInt64(ks.Object, "status", "observedGeneration")
	ready := readyCondition(ks)
	switch {
	case ready == nil:
		return fmt.Errorf("Kustomization %s has no Ready condition yet", name)
	case observed != ks.GetGeneration():
		return fmt.Errorf("Kustomization %s: generation %d not yet observed", name, ks.GetGeneration())
	case ready.Status != metav1.ConditionTrue:
		return fmt.Errorf("Kustomization %s not Ready: %s: %s", name, ready.Reason, ready.Message)
	}
	if applied, _, _ := unstructured.NestedString(ks.Object, "status", "lastAppliedRevision"); revision != "" && !strings.HasSuffix(applied, revision) {
		return fmt.Errorf("Kustomization %s applied %s, not yet %s", name, applied, revision)
	}
	return nil
}

func readyCondition(u *unstructured.Unstructured) *metav1.Condition {
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var conds []metav1.Condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		cond := metav1.Condition{}
		cond.Type, _ = m["type"].(string)
		s, _ := m["status"].(string)
		cond.Status = metav1.ConditionStatus(s)
		cond.Reason, _ = m["reason"].(string)
		cond.Message, _ = m["message"].(string)
		conds = append(conds, cond)
	}
	return apimeta.FindStatusCondition(conds, "Ready")
}

// RequestReconcile asks Flux to reconcile an object now, as `flux reconcile`
// does (the annotation reconcile.fluxcd.io/requestedAt), and returns the
// token that status.lastHandledReconcileAt reports once handled.
func RequestReconcile(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, name string) (string, error) {
	token := time.Now().UTC().Format(time.RFC3339Nano)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(fluxNamespace)
	u.SetName(name)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"reconcile.fluxcd.io/requestedAt":%q}}}`, token)
	return token, c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(patch)))
}

// GitRepositoryGVK and KustomizationGVK name Flux's kinds for RequestReconcile.
var (
	GitRepositoryGVK = schema.GroupVersionKind{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "GitRepository"}
	KustomizationGVK = kustomizationGVK
)

// Handled fails until the object reports the reconcile request token handled.
func Handled(ctx context.Context, c client.Client, gvk schema.GroupVersionKind, name, token string) error {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := c.Get(ctx, client.ObjectKey{Namespace: fluxNamespace, Name: name}, u); err != nil {
		return err
	}
	if got, _, _ := unstructured.NestedString(u.Object, "status", "lastHandledReconcileAt"); got != token {
		return fmt.Errorf("%s %s has not handled the reconcile requested at %s yet (last: %q)", gvk.Kind, name, token, got)
	}
	return nil
}

// FluxCLI runs the flux command against c's flux-system and returns its
// combined output; a non-zero exit is an *exec.ExitError.
func FluxCLI(ctx context.Context, t GitOpsTools, c *lab.Cluster, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, t.Flux, append([]string{"--kubeconfig", c.Kubeconfig(), "--namespace", fluxNamespace}, args...)...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return string(out), fmt.Errorf("flux %s: %w", strings.Join(args, " "), err)
	}
	return string(out), err
}

// readManifests decodes every YAML document of a file, or of every *.yaml
// file of a directory.
func readManifests(path string) ([]*unstructured.Unstructured, error) {
	files := []string{path}
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		if files, err = filepath.Glob(filepath.Join(path, "*.yaml")); err != nil {
			return nil, err
		}
	}
	var out []*unstructured.Unstructured
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			return nil, err
		}
		dec := utilyaml.NewYAMLOrJSONDecoder(r, 64*1024)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				r.Close()
				return nil, fmt.Errorf("%s: %w", f, err)
			}
			if len(u.Object) > 0 {
				out = append(out, u)
			}
		}
		r.Close()
	}
	return out, nil
}

// applyAs server-side applies objects in stages under the lab's bootstrap
// field manager, so that Flux later takes the objects over.
func applyAs(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) error {
	cfg, err := c.RESTConfig()
	if err != nil {
		return err
	}
	rm, _, err := resourceManagerFor(cfg, ssa.Owner{Field: labBootstrapManager, Group: "lab.spillway.dev"})
	if err != nil {
		return err
	}
	opts := ssa.DefaultApplyOptions()
	opts.WaitTimeout = time.Minute
	if _, err := rm.ApplyAllStaged(ctx, objs, opts); err != nil {
		return fmt.Errorf("cluster %s: applying %d objects: %w", c.Name, len(objs), err)
	}
	return nil
}

// FleetKustomizations are the Kustomizations of every cluster of the fleet, in
// the order Flux can make them Ready (dependsOn of clusters/<name>/flux).
var FleetKustomizations = []string{BootstrapKustomization, "spillway-crds", "fleet-secrets", "spillway-install", "spillway-config"}

// WaitKustomizationsReady polls c's Kustomizations until every one is Ready,
// calling ready once for each as it first becomes so.
func WaitKustomizationsReady(ctx context.Context, c *lab.Cluster, names []string, ready func(name string)) error {
	cl, err := Client(c)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	return Poll(ctx, func(ctx context.Context) error {
		var errs []error
		for _, n := range names {
			if done[n] {
				continue
			}
			if err := KustomizationReady(ctx, cl, n, ""); err != nil {
				errs = append(errs, fmt.Errorf("cluster %s: %w", c.Name, err))
				continue
			}
			done[n] = true
			if ready != nil {
				ready(n)
			}
		}
		return errors.Join(errs...)
	})
}

// FluxReconciliations counts the Kustomization reconciliations c's
// kustomize-controller has logged: finished (applied and healthy) and failed
// (a dependency not ready, a health check timing out, an apply error).
func FluxReconciliations(c *lab.Cluster) (finished, failed int, err error) {
	data, err := os.ReadFile(c.LogPath(KustomizeControllerProcess))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.Contains(line, `"msg":"Reconciliation finished in`):
			finished++
		case strings.Contains(line, `"msg":"Reconciler error"`), strings.Contains(line, `"level":"error"`) && strings.Contains(line, `"controller":"kustomization"`):
			failed++
		}
	}
	return finished, failed, nil
}

// LogOffset is the current size of a process's log, so that a later read
// sees only what the process logged since.
func LogOffset(c *lab.Cluster, process string) int64 {
	st, err := os.Stat(c.LogPath(process))
	if err != nil {
		return 0
	}
	return st.Size()
}

// ApplyOutputs returns, for each "server-side apply completed" line c's
// kustomize-controller logged for the Kustomization name after offset, its
// output: the action ("unchanged", "configured", "created", ...) per object.
func ApplyOutputs(c *lab.Cluster, name string, offset int64) ([]map[string]string, error) {
	data, err := os.ReadFile(c.LogPath(KustomizeControllerProcess))
	if err != nil {
		return nil, err
	}
	if offset > int64(len(data)) {
		offset = 0
	}
	var out []map[string]string
	for _, line := range strings.Split(string(data[offset:]), "\n") {
		if !strings.Contains(line, `"server-side apply completed"`) {
			continue
		}
		var entry struct {
			Name   string            `json:"name"`
			Output map[string]string `json:"output"`
		}
		if err := json.Unmarshal([]byte(line), &entry); err != nil || entry.Name != name {
			continue
		}
		out = append(out, entry.Output)
	}
	return out, nil
}
