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

// Command demo is `make demo`, a Flux user's day one on the lab: rome
// (consumer) and milan (provider) with Flux and External Secrets, the fleet
// pushed to the lab's git server, and from there Flux applies every Spillway
// object and External Secrets carries every credential, until nginx runs on
// liqo-milan. It prints each step, fails with the reason when a step does not
// converge in time, and says how to make the next change and how to tear down.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

func main() {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "demo: FAILED:", err)
		os.Exit(1)
	}
}

type demo struct {
	root        string
	lab         *lab.Lab
	rome, milan *lab.Cluster
	tools       framework.GitOpsTools
	store       *framework.SecretStore
	repo        *framework.FleetRepo
	pushed      time.Time
}

func step(ctx context.Context, what string, timeout time.Duration, f func(context.Context) error) error {
	start := time.Now()
	fmt.Printf("==> %s\n", what)
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := f(sctx); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	fmt.Printf("    done in %s\n", time.Since(start).Round(100*time.Millisecond))
	return nil
}

func run(ctx context.Context) error {
	root, err := lab.RepoRoot()
	if err != nil {
		return err
	}
	d := &demo{root: root}
	steps := []struct {
		what    string
		timeout time.Duration
		f       func(context.Context) error
	}{
		{"build the Spillway binaries", 10 * time.Minute, func(context.Context) error { _, err := framework.Binaries(); return err }},
		{"find Flux (source-controller, kustomize-controller, flux CLI) and External Secrets, built by hack/tools.sh", 40 * time.Minute, d.findTools},
		{"start the lab: rome (consumer) and milan (provider)", 15 * time.Minute, d.labUp},
		{"the secret store (namespace " + framework.StoreNamespace + " on rome) and the lab's git server with the fleet pushed to it", 2 * time.Minute, d.pushFleet},
		{"install Flux and External Secrets on rome and milan (as `flux install` and External Secrets' chart would)", 3 * time.Minute, d.installTools},
		{"bootstrap: the store's credentials (the one Secret made by hand) and Flux's bootstrap of clusters/<name>/flux", 2 * time.Minute, d.bootstrap},
		{"Flux applies each cluster's layers in dependsOn order; spillway-controller starts once its install layer is applied", 8 * time.Minute, d.waitFlux},
		{"wait for the offloaded nginx to run in milan, seen Running on liqo-milan from rome", 3 * time.Minute, d.waitOffloaded},
		{"check for drift: a forced reconcile of every layer applies nothing, and flux diff shows nothing", 3 * time.Minute, d.checkDrift},
	}
	for _, s := range steps {
		if err := step(ctx, s.what, s.timeout, s.f); err != nil {
			return err
		}
	}
	return d.report(ctx)
}

func (d *demo) findTools(context.Context) error {
	var err error
	d.tools, err = framework.ResolveGitOpsTools(os.Stdout)
	return err
}

func (d *demo) labUp(ctx context.Context) error {
	l, err := lab.Up(ctx, lab.Options{Dir: filepath.Join(d.root, ".lab"), Out: os.Stdout}, lab.MustSpecs("rome milan:nodes=2,cpu=8,memory=32Gi"))
	if err != nil {
		return err
	}
	l.Close()
	d.lab = l
	d.rome, _ = l.Cluster("rome")
	d.milan, _ = l.Cluster("milan")
	return nil
}

func (d *demo) pushFleet(ctx context.Context) error {
	var err error
	if d.store, err = framework.StartSecretStore(ctx, d.rome); err != nil {
		return err
	}
	if d.repo, err = framework.StartFleetRepo(ctx, d.root, d.lab, d.rome); err != nil {
		return err
	}
	d.pushed = time.Now()
	fmt.Printf("    fleet: %s (clusters/ and kustomize/ of this tree; working clone %s)\n", d.repo.URL, d.repo.Dir())
	return nil
}

func (d *demo) both(ctx context.Context, f func(context.Context, *lab.Cluster) error) error {
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, c := range []*lab.Cluster{d.rome, d.milan} {
		wg.Go(func() { errs[i] = f(ctx, c) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) installTools(ctx context.Context) error {
	return d.both(ctx, func(ctx context.Context, c *lab.Cluster) error {
		if err := framework.InstallFlux(ctx, c, d.tools); err != nil {
			return err
		}
		return framework.InstallExternalSecrets(ctx, c, d.tools)
	})
}

func (d *demo) bootstrap(ctx context.Context) error {
	return d.both(ctx, func(ctx context.Context, c *lab.Cluster) error {
		if err := d.store.Bootstrap(ctx, c); err != nil {
			return err
		}
		return framework.BootstrapFlux(ctx, c, d.repo)
	})
}

// waitFlux starts each manager when Flux has applied its install layer and
// prints each Kustomization as it becomes Ready, timed from the push.
func (d *demo) waitFlux(ctx context.Context) error {
	var mu sync.Mutex
	return d.both(ctx, func(ctx context.Context, c *lab.Cluster) error {
		managerErr := make(chan error, 1)
		go func() { managerErr <- framework.StartManagerWhenInstalled(ctx, c) }()
		err := framework.WaitKustomizationsReady(ctx, c, framework.FleetKustomizations, func(name string) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Printf("    %-6s Kustomization %-17s Ready %5.1fs after the push\n", c.Name, name, time.Since(d.pushed).Seconds())
		})
		if mErr := <-managerErr; mErr != nil {
			return mErr
		}
		return err
	})
}

// waitOffloaded waits for nginx's pod to be Running on liqo-milan. The
// Deployment in git carries no toleration: the pod webhook adds it.
func (d *demo) waitOffloaded(ctx context.Context) error {
	romeC, err := framework.Client(d.rome)
	if err != nil {
		return err
	}
	return framework.Poll(ctx, func(ctx context.Context) error {
		pods := &corev1.PodList{}
		if err := romeC.List(ctx, pods, client.InNamespace("liqo-demo"), client.MatchingLabels{"app": "nginx"}); err != nil {
			return err
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName == "liqo-milan" && p.Status.Phase == corev1.PodRunning {
				fmt.Printf("    nginx Running on liqo-milan %.1fs after the push\n", time.Since(d.pushed).Seconds())
				return nil
			}
		}
		return fmt.Errorf("no nginx pod Running on liqo-milan yet (%d pods)", len(pods.Items))
	})
}

func (d *demo) report(ctx context.Context) error {
	rel := func(c *lab.Cluster) string { r, _ := filepath.Rel(d.root, c.Kubeconfig()); return r }
	for _, c := range []*lab.Cluster{d.rome, d.milan} {
		fmt.Printf("\n$ flux --kubeconfig %s get kustomizations\n", rel(c))
		out, err := framework.FluxCLI(ctx, d.tools, c, "get", "kustomizations")
		fmt.Print(out)
		if err != nil {
			return err
		}
		finished, failed, err := framework.FluxReconciliations(c)
		if err != nil {
			return err
		}
		fmt.Printf("(%s: %d Kustomization reconciliations finished, %d failed or waited on a dependency, in %s)\n", c.Name, finished, failed, c.LogPath(framework.KustomizeControllerProcess))
	}
	kubectl := filepath.Join(d.rome.LabBinaries().KubeDir, "kubectl")
	for _, args := range [][]string{{"get", "nodes"}, {"get", "foreignclusters"}, {"get", "externalsecrets", "-A"}, {"get", "pods", "-n", "liqo-demo", "-o", "wide"}} {
		fmt.Printf("\n$ kubectl --kubeconfig %s %s\n", rel(d.rome), strings.Join(args, " "))
		out, err := exec.CommandContext(ctx, kubectl, append([]string{"--kubeconfig", d.rome.Kubeconfig()}, args...)...).CombinedOutput()
		fmt.Print(string(out))
		if err != nil {
			return err
		}
	}
	repo, _ := filepath.Rel(d.root, d.repo.Dir())
	fmt.Printf(`
Nothing above was applied by hand but the store's credentials: Flux applied every
Spillway object from %s and External Secrets carried milan's identity for rome
(PushSecret liqo/identity-rome on milan -> %s/spillway-milan-identity-rome on
rome -> ExternalSecret liqo/milan-credentials on rome).

The lab has no container runtime, so spillway-controller runs as a lab process
(%s) standing in for the Deployment liqo/spillway-controller of the install
layer (kustomize/manager), configured from the ConfigMap liqo/spillway-cluster-identity
Flux applied. Flux applies that Deployment unchanged; its pod is scheduled on a
kwok node, which reports it Running without running anything.

Make the next change by a commit, e.g. offer rome a label more:
  cd %s && $EDITOR clusters/milan/config/resourceoffer-rome.yaml
  git commit -am "Offer rome the zone label" && git push origin main
  %s --kubeconfig %s reconcile kustomization spillway-config --with-source
  %s --kubeconfig %s diff kustomization spillway-config --progress-bar=false --path ./clusters/milan/config
Tear down with: make lab-down
`, d.repo.URL, framework.StoreNamespace, d.rome.LogPath(framework.ManagerProcess), repo, d.tools.Flux, d.milan.Kubeconfig(), d.tools.Flux, d.milan.Kubeconfig())
	return nil
}
