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

package faults_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// backToWork is the bound on how long the consumer's manager may take
// to work again once its API server is back.
const backToWork = 30 * time.Second

// Spec 1 of issue 13: the manager as shipped (leader election on) rides out
// its own API server's outage, and touches no remote pod meanwhile.
var _ = Describe("the consumer's manager through its API server's outage", func() {
	It("loses and recreates no remote pod and is back at work within 30 s of the return", func(ctx context.Context) {
		ns := "lifecycle-outage"
		offload(ctx, ns, offloadingv1alpha1.RemotePodOffloadingStrategy)
		Expect(romeC.Create(ctx, deployment(ns, "web", 3))).To(Succeed())
		Eventually(func(g Gomega) {
			c := census(ctx, g, ns, ns)
			g.Expect(c.Running).To(Equal(3))
			g.Expect(c.Remote).To(HaveLen(3))
			g.Expect(c.Shadows).To(HaveLen(3))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
		var before Census
		Eventually(func(g Gomega) { before = census(ctx, g, ns, ns) }).WithContext(ctx).Should(Succeed())
		uids := before.remoteUIDs()
		pid, err := rome.PID(framework.ManagerProcess)
		Expect(err).NotTo(HaveOccurred())
		lost := managerMetric(ctx, rome, "spillway_manager_leadership_lost_total")

		down := outage(5*time.Minute, 90*time.Second)
		DeferCleanup(restoreRome)
		Expect(rome.Stop(lab.APIServer)).To(Succeed())
		// Split-brain promise: while the consumer is gone, its remote pods run on.
		Consistently(func(g Gomega) {
			pods := &corev1.PodList{}
			g.Expect(milanC.List(ctx, pods, client.InNamespace(ns))).To(Succeed())
			g.Expect(podUIDs(pods.Items)).To(Equal(uids))
		}).WithContext(ctx).WithTimeout(down).WithPolling(5 * time.Second).Should(Succeed())
		Expect(rome.Start(ctx, lab.APIServer)).To(Succeed())
		returned := time.Now()
		GinkgoWriter.Printf("rome's API server was down %s\n", down.Round(time.Second))

		// Work the manager alone does: renew the virtual node's lease, and
		// run a new replica (pod webhook, then virtual kubelet, ShadowPod on
		// milan, status back).
		leaseRenewed := make(chan time.Duration, 1)
		go func() {
			defer GinkgoRecover()
			_ = framework.Poll(ctx, func(ctx context.Context) error {
				l := &coordinationv1.Lease{}
				if err := romeC.Get(ctx, client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: virtualkubeletv1alpha1.VirtualNodeName("milan")}, l); err != nil {
					return err
				}
				if l.Spec.RenewTime == nil || l.Spec.RenewTime.Time.Before(returned) {
					return fmt.Errorf("lease of liqo-milan last renewed before the return")
				}
				leaseRenewed <- time.Since(returned)
				return nil
			})
		}()
		Eventually(func() error {
			d := &appsv1.Deployment{}
			if err := romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, d); err != nil {
				return err
			}
			d.Spec.Replicas = ptr.To(int32(4))
			return romeC.Update(ctx, d)
		}).WithContext(ctx).WithTimeout(backToWork).WithPolling(200 * time.Millisecond).Should(Succeed())
		var after Census
		Eventually(func(g Gomega) {
			after = census(ctx, g, ns, ns)
			g.Expect(after.Running).To(Equal(4))
			g.Expect(after.Remote).To(HaveLen(4))
			for name, p := range after.Remote {
				g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "remote pod %s", name)
			}
		}).WithContext(ctx).WithTimeout(2 * time.Minute).WithPolling(250 * time.Millisecond).Should(Succeed())
		working := time.Since(returned)
		var renewed time.Duration
		Eventually(leaseRenewed).WithContext(ctx).WithTimeout(backToWork).Should(Receive(&renewed))
		GinkgoWriter.Printf("after the return: virtual node lease renewed in %s, scaled-up replica Running on milan in %s\n",
			renewed.Round(100*time.Millisecond), working.Round(100*time.Millisecond))
		Expect(working).To(BeNumerically("<=", backToWork), "the manager must be back at work within %s of the return", backToWork)
		Expect(renewed).To(BeNumerically("<=", backToWork))

		// No remote pod lost or recreated: the three from before, same UIDs.
		for name, uid := range uids {
			Expect(after.Remote).To(HaveKey(name))
			Expect(after.Remote[name].UID).To(Equal(uid), "remote pod %s was recreated", name)
		}
		Expect(after.Terminating).To(BeZero())
		Expect(after.Shadows).To(HaveLen(4))

		// The same process rode it out: it lost its lease (the outage outlasts
		// the renew deadline) and re-elected itself without exiting.
		now, err := rome.PID(framework.ManagerProcess)
		Expect(err).NotTo(HaveOccurred(), "rome's manager exited during the outage")
		Expect(now).To(Equal(pid), "rome's manager was restarted")
		Expect(managerMetric(ctx, rome, "spillway_manager_leadership_lost_total")).To(BeNumerically(">", lost),
			"the outage should have cost the manager its lease")
		GinkgoWriter.Printf("rome's manager: same process (pid %d), leadership lost and regained in-process\n", pid)
	}, SpecTimeout(outage(5*time.Minute, 90*time.Second)+5*time.Minute))
})

// restoreRome leaves rome as the suite found it: API server up, manager
// running, the peering Ready.
func restoreRome(ctx context.Context) {
	Expect(rome.Start(ctx, lab.APIServer)).To(Succeed())
	if !rome.ExtraRunning(framework.ManagerProcess) {
		restartManager(ctx, rome)
	}
	Expect(framework.Poll(ctx, func(ctx context.Context) error {
		return framework.NodeReady(ctx, romeC, virtualkubeletv1alpha1.VirtualNodeName("milan"))
	})).To(Succeed())
}

func podUIDs(pods []corev1.Pod) map[string]types.UID {
	out := map[string]types.UID{}
	for _, p := range pods {
		out[p.Name] = p.UID
	}
	return out
}

// managerMetric reads one series (name, or name{labels}) from c's manager's
// metrics endpoint, the sum over all series of that name when no labels are
// given; a series not exposed reads as 0.
func managerMetric(ctx context.Context, c *lab.Cluster, series string) float64 {
	values, err := scrapeManager(ctx, c)
	Expect(err).NotTo(HaveOccurred())
	return sumSeries(values, series)
}

// scrapeManager returns every sample of c's manager's metrics, by series.
func scrapeManager(ctx context.Context, c *lab.Cluster) (map[string]float64, error) {
	port, err := c.ExtraPort(0)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("metrics of %s's manager: %s", c.Name, resp.Status)
	}
	return parseSamples(resp.Body)
}

// parseSamples reads Prometheus' text format: "series value" per line.
func parseSamples(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("metrics line %q: %w", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

func sumSeries(values map[string]float64, series string) float64 {
	if strings.Contains(series, "{") {
		return values[series]
	}
	sum := 0.0
	for s, v := range values {
		if s == series || strings.HasPrefix(s, series+"{") {
			sum += v
		}
	}
	return sum
}
