// Command demo is `make demo`: a local consumer (rome) and provider (milan)
// on the lab, Spillway installed on both, peered from the manifests committed
// under clusters/. It prints each step, fails with the reason when a step does
// not converge in time, and says how to tear down.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
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
	rome, milan *lab.Cluster
}

func step(what string, f func(context.Context) error, ctx context.Context, timeout time.Duration) error {
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
		f       func(context.Context) error
		timeout time.Duration
	}{
		{"build the Spillway binaries", func(context.Context) error { _, err := framework.Binaries(); return err }, 10 * time.Minute},
		{"start the lab: rome (consumer) and milan (provider)", d.labUp, 15 * time.Minute},
		{"install the CRDs and start spillway-controller on both clusters", d.install, 3 * time.Minute},
		{"apply clusters/milan/config: milan offers resources to rome", d.applyMilan, 2 * time.Minute},
		{"carry milan's identity Secret to rome (the lab's stand-in for External Secrets)", d.carryCredentials, time.Minute},
		{"apply clusters/rome/config: rome peers with milan; wait for liqo-milan Ready", d.applyRome, 2 * time.Minute},
		{"wait for the offloaded nginx to run in milan, seen Running on liqo-milan from rome", d.waitOffloaded, 2 * time.Minute},
	}
	for _, s := range steps {
		if err := step(s.what, s.f, ctx, s.timeout); err != nil {
			return err
		}
	}
	for _, args := range [][]string{{"get", "nodes"}, {"get", "foreignclusters"}, {"get", "pods", "-A", "-o", "wide", "--field-selector", "metadata.namespace!=kube-system"}} {
		fmt.Printf("\n$ kubectl --kubeconfig .lab/rome/kubeconfig %s\n", strings.Join(args, " "))
		out, err := exec.CommandContext(ctx, filepath.Join(d.rome.LabBinaries().KubeDir, "kubectl"), append([]string{"--kubeconfig", d.rome.Kubeconfig()}, args...)...).CombinedOutput()
		fmt.Print(string(out))
		if err != nil {
			return err
		}
	}
	fmt.Println("\nThe pod above runs in milan (kubectl --kubeconfig .lab/milan/kubeconfig get pods -A -o wide).")
	fmt.Println("Tear down with: make lab-down")
	return nil
}

func (d *demo) labUp(ctx context.Context) error {
	l, err := lab.Up(ctx, lab.Options{Dir: filepath.Join(d.root, ".lab"), Out: os.Stdout}, lab.MustSpecs("rome milan:nodes=2,cpu=8,memory=32Gi"))
	if err != nil {
		return err
	}
	l.Close()
	d.rome, _ = l.Cluster("rome")
	d.milan, _ = l.Cluster("milan")
	return nil
}

func (d *demo) install(ctx context.Context) error {
	for _, c := range []*lab.Cluster{d.rome, d.milan} {
		if err := framework.ApplyDir(ctx, c, filepath.Join(d.root, "kustomize/crd")); err != nil {
			return err
		}
		if err := framework.Apply(ctx, c, []*unstructured.Unstructured{framework.Namespace("liqo")}); err != nil {
			return err
		}
		id, err := framework.IdentityOf(filepath.Join(d.root, "clusters", c.Name, "install"))
		if err != nil {
			return err
		}
		if err := framework.StartManager(ctx, c, id); err != nil {
			return err
		}
	}
	return nil
}

func (d *demo) applyMilan(ctx context.Context) error {
	objs, err := framework.LabObjects(filepath.Join(d.root, "clusters/milan/config"))
	if err != nil {
		return err
	}
	if err := framework.Apply(ctx, d.milan, objs); err != nil {
		return err
	}
	return framework.WaitForObjects(ctx, d.milan, objs)
}

var (
	identityKey    = client.ObjectKey{Namespace: "liqo", Name: sharingv1alpha1.IdentitySecretName("rome", "")}
	credentialsKey = client.ObjectKey{Namespace: "liqo", Name: "milan-credentials"}
)

func (d *demo) carryCredentials(ctx context.Context) error {
	milanC, err := framework.Client(d.milan)
	if err != nil {
		return err
	}
	romeC, err := framework.Client(d.rome)
	if err != nil {
		return err
	}
	return framework.Poll(ctx, func(ctx context.Context) error {
		return framework.CopySecret(ctx, milanC, identityKey, romeC, credentialsKey)
	})
}

func (d *demo) applyRome(ctx context.Context) error {
	objs, err := framework.LabObjects(filepath.Join(d.root, "clusters/rome/config"))
	if err != nil {
		return err
	}
	if err := framework.Apply(ctx, d.rome, objs); err != nil {
		return err
	}
	romeC, err := framework.Client(d.rome)
	if err != nil {
		return err
	}
	return framework.Poll(ctx, func(ctx context.Context) error {
		n := &corev1.Node{}
		if err := romeC.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, n); err != nil {
			return err
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("liqo-milan is not Ready")
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
				return nil
			}
		}
		return fmt.Errorf("no nginx pod Running on liqo-milan yet (%d pods)", len(pods.Items))
	})
}
