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

package offloading_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
	podreflector "github.com/spillway-dev/spillway/reflectors/pod"
)

// kubectl runs the lab's kubectl against cluster c and returns its combined output.
func kubectl(ctx context.Context, c *lab.Cluster, args ...string) (string, error) {
	bin := filepath.Join(c.LabBinaries().KubeDir, "kubectl")
	out, err := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig=" + c.Kubeconfig(), "--request-timeout=20s"}, args...)...).CombinedOutput()
	return string(out), err
}

// anyName returns one key of pods.
func anyName(pods map[string]corev1.Pod) string {
	for n := range pods {
		return n
	}
	return ""
}

// managerRSS reads VmRSS and VmHWM (kB) of the spillway-controller started
// for cluster c, found by its --kubeconfig argument.
func managerRSS(c *lab.Cluster) (rss, hwm string) {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		cmd, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(cmd), "spillway-controller") || !strings.Contains(string(cmd), "--kubeconfig="+c.Kubeconfig()+"\x00") {
			continue
		}
		status, err := os.ReadFile(filepath.Join(filepath.Dir(p), "status"))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(status), "\n") {
			f := strings.Fields(l)
			if len(f) >= 2 && f[0] == "VmRSS:" {
				rss = f[1]
			}
			if len(f) >= 2 && f[0] == "VmHWM:" {
				hwm = f[1]
			}
		}
		return rss, hwm
	}
	return "?", "?"
}

// kubeletAPISpecs run inside the ordered pod offloading container, while its
// Deployment's pods run on milan.
func kubeletAPISpecs(ns, app string, twin *string) {
	It("answers kubectl logs on rome with what milan answers for the pod", func(ctx context.Context) {
		name := anyName(runningPods(ctx, romeC, ns, app))
		Expect(name).NotTo(BeEmpty())
		direct, err := kubectl(ctx, milan, "logs", "-n", *twin, name)
		Expect(err).NotTo(HaveOccurred(), "milan's own kubectl logs: %s", direct)
		Expect(direct).To(ContainSubstring(lab.KwokLogLine("milan")))
		Eventually(func(g Gomega) {
			out, err := kubectl(ctx, rome, "logs", "-n", ns, name)
			g.Expect(err).NotTo(HaveOccurred(), out)
			g.Expect(out).To(Equal(direct))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())
		out, err := kubectl(ctx, rome, "logs", "-n", ns, name, "--tail=1", "-c", "web")
		Expect(err).NotTo(HaveOccurred(), out)
		Expect(out).To(Equal(direct), "options and the container name reach the provider")
		rss, hwm := managerRSS(rome)
		prss, phwm := managerRSS(milan)
		GinkgoWriter.Printf("manager RSS with 1 peering and %d offloaded pods: rome (consumer, 1 virtual kubelet) VmRSS %s kB VmHWM %s kB, %s kB before peering; milan (provider, none) VmRSS %s kB VmHWM %s kB\n",
			len(runningPods(ctx, romeC, ns, app)), rss, hwm, baselineRSS, prss, phwm)
	}, SpecTimeout(time.Minute))

	It("relays kubectl exec on rome to milan and shows milan's answer", func(ctx context.Context) {
		name := anyName(runningPods(ctx, romeC, ns, app))
		direct, directErr := kubectl(ctx, milan, "exec", "-n", *twin, name, "--", "echo", "hello")
		out, err := kubectl(ctx, rome, "exec", "-n", ns, name, "--", "echo", "hello")
		GinkgoWriter.Printf("milan: %s\nrome: %s\n", direct, out)
		if directErr == nil {
			Expect(err).NotTo(HaveOccurred(), out)
			Expect(out).To(Equal(direct))
			return
		}
		// kwok serves exec only for pods a ClusterExec rule names: the user
		// sees that milan refused, and milan's own words.
		Expect(err).To(HaveOccurred())
		Expect(out).To(ContainSubstring("cluster milan"))
		Expect(out).To(ContainSubstring("the provider answered"))
		Expect(out).To(ContainSubstring(`no exec found for container "web"`))
	}, SpecTimeout(time.Minute))
}

var _ = Describe("a pod forced onto a virtual node", func() {
	It("stays Pending with OffloadingBackOff while its namespace is not offloaded", func(ctx context.Context) {
		const ns = "not-offloaded"
		Expect(client.IgnoreAlreadyExists(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "forced", Namespace: ns},
			Spec: corev1.PodSpec{NodeName: "liqo-milan", TerminationGracePeriodSeconds: ptr.To(int64(0)),
				Containers:  []corev1.Container{{Name: "web", Image: "nginx"}},
				Tolerations: []corev1.Toleration{policies.VirtualNodeToleration()}},
		}
		// Admission refuses pods until the namespace's default ServiceAccount
		// exists; after the API server outage spec, kube-controller-manager may
		// take long to create it, and it is not what this spec is about.
		sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: ns}}
		Expect(client.IgnoreAlreadyExists(romeC.Create(ctx, sa))).To(Succeed())
		Eventually(func() error { return romeC.Create(ctx, pod.DeepCopy()) }).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			g.Expect(pod.Status.Phase).To(Equal(corev1.PodPending))
			g.Expect(pod.Status.Reason).To(Equal(podreflector.ReasonOffloadingBackOff))
			g.Expect(pod.Status.Message).To(ContainSubstring("NamespaceOffloading"))
			// Right after the API server outage spec, the virtual kubelet's
			// watches may still be in client-go's reconnect back-off (up to 30 s).
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
		Consistently(func(g Gomega) {
			sps := &virtualkubeletv1alpha1.ShadowPodList{}
			g.Expect(milanC.List(ctx, sps)).To(Succeed())
			for _, sp := range sps.Items {
				g.Expect(sp.Name).NotTo(Equal("forced"), "nothing reaches milan for a namespace it does not host")
			}
			g.Expect(romeC.Get(ctx, client.ObjectKeyFromObject(pod), pod)).To(Succeed())
			g.Expect(pod.Status.Reason).To(Equal(podreflector.ReasonOffloadingBackOff))
		}).WithContext(ctx).WithTimeout(6 * time.Second).WithPolling(time.Second).Should(Succeed())
		Expect(romeC.Delete(ctx, pod)).To(Succeed())
	}, SpecTimeout(3*time.Minute))
})

// restartCountSpec deletes one provider pod and expects the recreation to show
// as a restart of the local pod.
func restartCountSpec(ns, app string, twin *string) {
	It("counts a pod the provider recreated as a restart on rome", func(ctx context.Context) {
		name := anyName(runningPods(ctx, milanC, *twin, app))
		before := runningPods(ctx, milanC, *twin, app)[name]
		earlier, _ := strconv.Atoi(before.Annotations[virtualkubeletv1alpha1.RecreationsAnnotation])
		vanished := watchDeletions(ctx, *twin, name)
		// A graceful deletion, as an eviction or a drain does: kwok removes the
		// pod once terminated. (Deleting with grace 0 recreates the name
		// within milliseconds, which kwok v0.8's stage queue, keyed by name,
		// occasionally left without status.)
		Expect(milanC.Delete(ctx, &before)).To(Succeed(), "an eviction the consumer does not see")
		Eventually(func(g Gomega) {
			// kwok v0.8 deletes a pod by name, without a UID precondition, and
			// its stage queue can replay a deletion queued for the old pod onto
			// the new one of the same name: the provider then rightly recreates
			// twice. So the expected count is every pod of that name that
			// vanished, counted from milan's watch, not from the product.
			gone := vanished()
			g.Expect(gone).To(BeNumerically(">=", 1))
			remote := &corev1.Pod{}
			g.Expect(milanC.Get(ctx, client.ObjectKey{Namespace: *twin, Name: name}, remote)).To(Succeed())
			g.Expect(remote.UID).NotTo(Equal(before.UID))
			g.Expect(remote.Annotations).To(HaveKeyWithValue(virtualkubeletv1alpha1.RecreationsAnnotation, strconv.Itoa(earlier+gone)),
				"one recreation for each of the %d pods named %s that vanished", gone, name)
			g.Expect(remote.Status.ContainerStatuses).NotTo(BeEmpty())
			local := &corev1.Pod{}
			g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, local)).To(Succeed())
			g.Expect(local.Status.ContainerStatuses).NotTo(BeEmpty())
			g.Expect(local.Status.ContainerStatuses[0].RestartCount).To(Equal(remote.Status.ContainerStatuses[0].RestartCount+int32(earlier+gone)),
				"restarts = the provider's + its recreations")
			g.Expect(local.Status.Phase).To(Equal(corev1.PodRunning))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))
}

// watchDeletions watches milan's pods named name in ns until ctx ends and
// returns a function that says how many distinct pods of that name were
// deleted since the call. The watch starts before the caller deletes
// anything, so no deletion is missed.
func watchDeletions(ctx context.Context, ns, name string) func() int {
	cs, err := milan.Clientset()
	Expect(err).NotTo(HaveOccurred())
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
	Expect(err).NotTo(HaveOccurred())
	var mu sync.Mutex
	deleted := map[types.UID]bool{}
	go func() {
		defer GinkgoRecover()
		defer w.Stop()
		for ev := range w.ResultChan() {
			if pod, ok := ev.Object.(*corev1.Pod); ok && ev.Type == watch.Deleted {
				mu.Lock()
				deleted[pod.UID] = true
				mu.Unlock()
			}
		}
	}()
	return func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(deleted)
	}
}
