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

package broker_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// The exec specs run in a namespace of their own, so they need nothing of
// the ordered shop specs and leave nothing behind for them.
const (
	execNs    = "tools"
	execApp   = "exec-probe"
	shell     = "shell" // the container kwok answers exec for (exec=shell in the suite's lab)
	noExecFor = "web"   // a container without a kwok exec rule
)

// execSpecTimeout bounds the exec specs but the first. Ginkgo runs an
// Ordered container's BeforeAll inside whichever of its specs runs first
// (all of them, or the one a focus keeps) and counts it against that
// spec's SpecTimeout: every spec's budget must hold the BeforeAll's 4
// minutes, or it cuts the BeforeAll short before its Eventually can say
// what it waited for (CI once failed that way, with no message).
const execSpecTimeout = 5 * time.Minute

// execAt is one of rome's exec pods and the provider cluster that runs it.
type execAt struct {
	pod      string // the name at rome, genoa and the provider alike
	provider *lab.Cluster
	remoteNs string // the pod's namespace at the provider
}

// kubectlStdin runs the lab's kubectl against cluster c with stdin and
// returns stdout, stderr and kubectl's exit code (-1 when it did not run).
func kubectlStdin(ctx context.Context, c *lab.Cluster, stdin string, args ...string) (stdout, stderr string, code int) {
	bin := filepath.Join(c.LabBinaries().KubeDir, "kubectl")
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig=" + c.Kubeconfig(), "--request-timeout=20s"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		code = 0
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		code = -1
	}
	return out.String(), errOut.String(), code
}

// kubectlInTerminal runs the lab's kubectl against cluster c with a
// pseudo-terminal as its stdin and stdout, as a user's `kubectl exec -it`
// runs, waits until the terminal shows prompt, presses Enter, and returns
// what the terminal showed until then and kubectl's exit code. The command
// must wait for that Enter (`read`): kwok v0.8 closes its end of the
// terminal as soon as the command exits, sometimes before it has copied the
// last output (1 in 20 of milan's own `kubectl exec -it` showed nothing).
func kubectlInTerminal(ctx context.Context, c *lab.Cluster, prompt string, args ...string) (string, int, error) {
	master, slave, err := openPTY()
	if err != nil {
		return "", -1, err
	}
	defer func() { _ = master.Close() }()
	bin := filepath.Join(c.LabBinaries().KubeDir, "kubectl")
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig=" + c.Kubeconfig(), "--request-timeout=20s"}, args...)...)
	var errOut bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, &errOut
	err = cmd.Start()
	_ = slave.Close() // kubectl holds it now: the master reads EIO once kubectl exits
	if err != nil {
		return "", -1, err
	}
	chunks := make(chan string)
	go func() {
		defer close(chunks)
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				chunks <- string(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	var screen strings.Builder
	for !strings.Contains(screen.String(), prompt) {
		chunk, open := <-chunks
		if !open {
			break // kubectl exited without showing it
		}
		screen.WriteString(chunk)
	}
	shown := screen.String()
	if strings.Contains(shown, prompt) {
		_, _ = master.Write([]byte("\r"))
	}
	go func() { // keeps reading what the terminal shows until kubectl exits
		for range chunks {
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return shown, 0, nil
	case errors.As(err, &exit):
		return shown + errOut.String(), exit.ExitCode(), nil
	default:
		return shown, -1, err
	}
}

// openPTY opens a pseudo-terminal pair (Linux: /dev/ptmx, unlocked, and its /dev/pts peer).
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0)
	}
	if err == nil {
		slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	}
	if err != nil {
		_ = master.Close()
		return nil, nil, fmt.Errorf("opening a pseudo-terminal: %w", err)
	}
	return master, slave, nil
}

func execProbe(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: execNs, Labels: map[string]string{"app": execApp},
			// One pod per node at every hop: at genoa the nodes are liqo-milan
			// and liqo-naples, so each provider runs one of the two pods.
			Annotations: map[string]string{offloadingv1alpha1.AntiAffinityPresetAnnotation: offloadingv1alpha1.AntiAffinityPresetHard}},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To(int64(2)),
			Containers:                    []corev1.Container{{Name: shell, Image: "busybox"}, {Name: noExecFor, Image: "nginx"}},
		},
	}
}

var _ = Describe("kubectl exec on rome, two hops from the pod", Ordered, func() {
	// Simulated: kwok stands for the providers' kubelets and runs the command
	// itself on the lab's host (lab.KwokExecRule), with
	// SPILLWAY_LAB_CLUSTER=<provider>; every API server and both virtual
	// kubelet APIs (rome's for liqo-genoa, genoa's for liqo-milan and
	// liqo-naples) are real.
	var probes []execAt
	var genoaTwin string // the twin of tools at genoa, where genoa's copies of the probes run

	BeforeAll(func(ctx context.Context) {
		// `spillway offload namespace tools --cluster rome`, Remote: only liqo-genoa.
		offloading := manifests.Offloading{Namespace: execNs, DeclareNamespace: true, PodStrategy: offloadingv1alpha1.RemotePodOffloadingStrategy}
		Expect(framework.ApplyFiles(ctx, rome, []manifests.File{offloading.File()})).To(Succeed())
		DeferCleanup(func(ctx context.Context) { removeExecProbes(ctx, genoaTwin) })
		for _, name := range []string{"probe-0", "probe-1"} {
			Eventually(func() error { return client.IgnoreAlreadyExists(romeC.Create(ctx, execProbe(name))) }).
				WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		}
		Eventually(func(g Gomega) {
			// Every hop's view goes into the failure message: which hop held
			// a probe back is what a rerun cannot tell.
			where := probeWhereabouts(ctx)
			probes = nil
			for _, p := range []struct {
				cluster *lab.Cluster
				c       client.Client
			}{{milan, milanC}, {naples, naplesC}} {
				list := &corev1.PodList{}
				g.Expect(p.c.List(ctx, list, client.MatchingLabels{"app": execApp})).To(Succeed())
				g.Expect(list.Items).To(HaveLen(1), "one probe at %s (hard anti-affinity at genoa)\n%s", p.cluster.Name, where)
				g.Expect(list.Items[0].Status.Phase).To(Equal(corev1.PodRunning), where)
				probes = append(probes, execAt{pod: list.Items[0].Name, provider: p.cluster, remoteNs: list.Items[0].Namespace})
			}
			for _, p := range probes {
				local, atGenoa := &corev1.Pod{}, &corev1.PodList{}
				g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: execNs, Name: p.pod}, local)).To(Succeed())
				g.Expect(local.Status.Phase).To(Equal(corev1.PodRunning), "rome sees %s Running\n%s", p.pod, where)
				g.Expect(genoaC.List(ctx, atGenoa, client.MatchingLabels{"app": execApp})).To(Succeed())
				g.Expect(atGenoa.Items).NotTo(BeEmpty(), where)
				genoaTwin = atGenoa.Items[0].Namespace
			}
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(time.Second).Should(Succeed())
	}, NodeTimeout(4*time.Minute)) // two creates of up to 30 s, then the 2-minute Eventually

	It("returns on rome what the provider's own kubectl exec returns, stdin and stderr included", func(ctx context.Context) {
		for _, p := range probes {
			By("exec into " + p.pod + " at " + p.provider.Name)
			// The answer names the cluster that ran it, so a relay to the
			// wrong provider, or an answer made up on the way, fails.
			direct, stderr, code := kubectlStdin(ctx, p.provider, "", "exec", "-n", p.remoteNs, p.pod, "-c", shell, "--", "printenv", lab.KwokExecClusterEnv)
			Expect(code).To(BeZero(), "%s's own kubectl exec: %s", p.provider.Name, stderr)
			Expect(direct).To(Equal(p.provider.Name + "\n"))
			Eventually(func(g Gomega) {
				out, stderr, code := kubectlStdin(ctx, rome, "", "exec", "-n", execNs, p.pod, "-c", shell, "--", "printenv", lab.KwokExecClusterEnv)
				g.Expect(code).To(BeZero(), stderr)
				g.Expect(out).To(Equal(direct))
			}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

			// kwok v0.8 never closes the command's stdin (it copies the stream
			// into a pipe it leaves open), so the command reads two lines and
			// ends rather than wait for an end of input that never comes.
			input := "typed at rome for " + p.provider.Name + "\nsecond line\n"
			out, stderr, code := kubectlStdin(ctx, rome, input, "exec", "-i", "-n", execNs, p.pod, "-c", shell, "--", "head", "-n", "2")
			Expect(code).To(BeZero(), stderr)
			Expect(out).To(Equal(input), "stdin reaches the provider's command and its stdout comes back, two hops each way")

			script := "echo on stderr at $" + lab.KwokExecClusterEnv + " >&2"
			_, direct, code = kubectlStdin(ctx, p.provider, "", "exec", "-n", p.remoteNs, p.pod, "-c", shell, "--", "sh", "-c", script)
			Expect(code).To(BeZero(), direct)
			Expect(direct).To(Equal("on stderr at " + p.provider.Name + "\n"))
			_, stderr, code = kubectlStdin(ctx, rome, "", "exec", "-n", execNs, p.pod, "-c", shell, "--", "sh", "-c", script)
			Expect(code).To(BeZero(), stderr)
			Expect(stderr).To(Equal(direct), "stderr comes back apart from stdout")
		}
	}, SpecTimeout(6*time.Minute)) // see execSpecTimeout

	It("gives rome's kubectl exec -it a terminal at the provider", func(ctx context.Context) {
		// The command checks it has a terminal on both ends, as a shell does
		// (kwok allocates one on the lab's host), says so, and waits for the
		// user's Enter, which travels the two hops as terminal input.
		script := "test -t 0 && test -t 1 && echo a terminal at $" + lab.KwokExecClusterEnv + " && read answer"
		for _, p := range probes {
			prompt := "a terminal at " + p.provider.Name + "\r\n"
			direct, code, err := kubectlInTerminal(ctx, p.provider, prompt, "exec", "-it", "-n", p.remoteNs, p.pod, "-c", shell, "--", "sh", "-c", script)
			Expect(err).NotTo(HaveOccurred())
			Expect(code).To(BeZero(), "%s's own kubectl exec -it: %q", p.provider.Name, direct)
			Expect(direct).To(ContainSubstring(prompt))
			out, code, err := kubectlInTerminal(ctx, rome, prompt, "exec", "-it", "-n", execNs, p.pod, "-c", shell, "--", "sh", "-c", script)
			Expect(err).NotTo(HaveOccurred())
			Expect(code).To(BeZero(), "rome's kubectl exec -it: %q", out)
			Expect(out).To(ContainSubstring(prompt))
		}
	}, SpecTimeout(execSpecTimeout))

	It("carries the provider's refusal back to rome, naming each hop", func(ctx context.Context) {
		for _, p := range probes {
			_, direct, code := kubectlStdin(ctx, p.provider, "", "exec", "-n", p.remoteNs, p.pod, "-c", noExecFor, "--", "true")
			Expect(code).NotTo(BeZero())
			Expect(direct).To(ContainSubstring(`no exec found for container "` + noExecFor + `"`))

			_, stderr, code := kubectlStdin(ctx, rome, "", "exec", "-n", execNs, p.pod, "-c", noExecFor, "--", "true")
			GinkgoWriter.Printf("rome's kubectl exec -c %s of %s (at %s): exit %d: %s", noExecFor, p.pod, p.provider.Name, code, stderr)
			Expect(code).NotTo(BeZero())
			Expect(stderr).To(ContainSubstring("on cluster genoa"), "rome's virtual kubelet names the broker")
			Expect(stderr).To(ContainSubstring("on cluster "+p.provider.Name), "genoa's virtual kubelet names the provider")
			Expect(stderr).To(ContainSubstring(`no exec found for container "`+noExecFor+`"`), "and the provider's own words come back")

			// kwok reports a command that exits non-zero as a failed exec,
			// not as an exit code (kubectl exits 1 at the provider too): its
			// words travel back the same way.
			_, direct, code = kubectlStdin(ctx, p.provider, "", "exec", "-n", p.remoteNs, p.pod, "-c", shell, "--", "sh", "-c", "exit 7")
			Expect(code).NotTo(BeZero())
			Expect(direct).To(ContainSubstring("exit status 7"))
			_, stderr, code = kubectlStdin(ctx, rome, "", "exec", "-n", execNs, p.pod, "-c", shell, "--", "sh", "-c", "exit 7")
			Expect(code).NotTo(BeZero())
			Expect(stderr).To(ContainSubstring("on cluster genoa"))
			Expect(stderr).To(ContainSubstring("on cluster " + p.provider.Name))
			Expect(stderr).To(ContainSubstring("exit status 7"))
		}
	}, SpecTimeout(execSpecTimeout))
})

// removeExecProbes deletes the probes and unoffloads their namespace, and
// waits until no hop holds anything of them: genoa's generated
// NamespaceOffloading in twin must be gone too, as the shop specs count
// genoa's.
func removeExecProbes(ctx context.Context, twin string) {
	Expect(client.IgnoreNotFound(romeC.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(execNs)))).To(Succeed())
	Eventually(func(g Gomega) {
		for _, c := range []client.Client{romeC, genoaC, milanC, naplesC} {
			list := &corev1.PodList{}
			g.Expect(c.List(ctx, list, client.MatchingLabels{"app": execApp})).To(Succeed())
			g.Expect(list.Items).To(BeEmpty())
		}
	}).WithContext(ctx).WithTimeout(90 * time.Second).WithPolling(time.Second).Should(Succeed())
	no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: execNs, Name: offloadingv1alpha1.RequiredName}}
	Expect(client.IgnoreNotFound(romeC.Delete(ctx, no))).To(Succeed())
	if twin == "" {
		return // the probes never ran at genoa
	}
	Eventually(func() error {
		return genoaC.Get(ctx, client.ObjectKey{Namespace: twin, Name: offloadingv1alpha1.RequiredName}, &offloadingv1alpha1.NamespaceOffloading{})
	}).WithContext(ctx).WithTimeout(90*time.Second).WithPolling(time.Second).Should(
		Satisfy(apierrors.IsNotFound), "genoa's NamespaceOffloading in the twin %s goes with rome's", twin)
}

// probeWhereabouts is every hop's view of the probes, a line each: the pods
// labelled for them at each cluster (namespace, node, phase, and why one is
// not yet scheduled), and the ShadowPods genoa, milan and naples hold for them
// with their Ready condition.
func probeWhereabouts(ctx context.Context) string {
	var b strings.Builder
	for _, at := range []struct {
		name string
		c    client.Client
	}{{"rome", romeC}, {"genoa", genoaC}, {"milan", milanC}, {"naples", naplesC}} {
		pods := &corev1.PodList{}
		if err := at.c.List(ctx, pods, client.MatchingLabels{"app": execApp}); err != nil {
			fmt.Fprintf(&b, "%s: listing pods: %v\n", at.name, err)
			continue
		}
		for _, p := range pods.Items {
			fmt.Fprintf(&b, "%s: pod %s/%s node=%q phase=%s", at.name, p.Namespace, p.Name, p.Spec.NodeName, p.Status.Phase)
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status != corev1.ConditionTrue {
					fmt.Fprintf(&b, " unscheduled: %s", c.Message)
				}
			}
			b.WriteString("\n")
		}
		if at.name == "rome" {
			continue // rome holds no ShadowPods of its own pods
		}
		shadows := &virtualkubeletv1alpha1.ShadowPodList{}
		if err := at.c.List(ctx, shadows); err != nil {
			fmt.Fprintf(&b, "%s: listing ShadowPods: %v\n", at.name, err)
			continue
		}
		for _, sp := range shadows.Items {
			if !strings.HasPrefix(sp.Name, "probe-") {
				continue
			}
			ready := conditions.Get(&sp, meta.ReadyCondition)
			if ready == nil {
				fmt.Fprintf(&b, "%s: ShadowPod %s/%s phase=%s, no Ready condition\n", at.name, sp.Namespace, sp.Name, sp.Status.Phase)
				continue
			}
			fmt.Fprintf(&b, "%s: ShadowPod %s/%s phase=%s Ready=%s %s: %s\n", at.name, sp.Namespace, sp.Name, sp.Status.Phase, ready.Status, ready.Reason, ready.Message)
		}
	}
	return b.String()
}
