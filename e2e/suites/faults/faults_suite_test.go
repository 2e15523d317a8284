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

// Package faults_test stops and starts the lab's real processes while pods
// are offloaded, and counts pods exactly afterwards: lost, leaked, duplicated
// or stuck. rome consumes, milan provides; both managers run as the install
// layer's Deployment does, with --leader-elect.
//
// Every outage has two lengths: the short one `make test` (CI) runs, and the
// long one the issue asks for, run by `make faults` (SPILLWAY_FAULTS=long).
// Specs are independent: each works in its own namespace and leaves every
// lab process running, because ginkgo may run them in any order.
package faults_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

const portBase = 18900

var (
	theLab          *lab.Lab
	rome, milan     *lab.Cluster
	romeC, milanC   client.Client
	romeID, milanID framework.Identity
	repoRoot        string
)

// managerArgs are the flags both managers run with in every spec: the
// install layer's Deployment runs with leader election; the pprof endpoint
// lets the peerings spec take heap profiles after a forced collection.
func managerArgs(c *lab.Cluster) []string {
	return []string{"--leader-elect", framework.PprofArg(c)}
}

func TestFaults(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "faults suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	repoRoot, err = lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "faults", portBase, "rome milan:nodes=3,cpu=8,memory=32Gi")
	Expect(err).NotTo(HaveOccurred())
	rome, romeC, err = framework.Member(theLab, "rome")
	Expect(err).NotTo(HaveOccurred())
	milan, milanC, err = framework.Member(theLab, "milan")
	Expect(err).NotTo(HaveOccurred())
	romeID, err = framework.FleetIdentity(repoRoot, "rome")
	Expect(err).NotTo(HaveOccurred())
	milanID, err = framework.FleetIdentity(repoRoot, "milan")
	Expect(err).NotTo(HaveOccurred())
	Expect(framework.QuickStartWith(ctx, repoRoot, rome, milan, framework.PeeringOnly, managerArgs)).To(Succeed())
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})

// long reports whether this run is `make faults`: the outages the issue
// specifies, rather than CI's short versions of them.
func long() bool { return os.Getenv("SPILLWAY_FAULTS") == "long" }

// outage picks the length of a fault: full under `make faults`, short in CI.
func outage(full, short time.Duration) time.Duration {
	if long() {
		return full
	}
	return short
}

// restartManager stops c's manager process and starts it again with the
// suite's flags, as a rolling update or an OOM kill would.
func restartManager(ctx context.Context, c *lab.Cluster) {
	Expect(c.StopExtra(framework.ManagerProcess)).To(Succeed())
	id := romeID
	if c == milan {
		id = milanID
	}
	Expect(framework.StartManager(ctx, c, id, managerArgs(c)...)).To(Succeed())
}

// offload creates namespace ns on rome with a NamespaceOffloading of the
// given strategy and waits until it is Ready.
func offload(ctx context.Context, ns string, strategy offloadingv1alpha1.PodOffloadingStrategy) {
	Expect(client.IgnoreAlreadyExists(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
	Expect(romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: ns},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{
			NamespaceMappingStrategy: offloadingv1alpha1.EnforceSameNameMappingStrategy,
			PodOffloadingStrategy:    strategy,
		},
	})).To(Succeed())
	Eventually(func(g Gomega) {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "offloading"}, no)).To(Succeed())
		g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
	}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	// A pod created directly (not by a controller) is refused until the
	// controller-manager has made the namespace's default ServiceAccount,
	// which it does asynchronously, later still right after an earlier
	// spec's API server outage (its informers back off).
	Eventually(func() error {
		return romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: "default"}, &corev1.ServiceAccount{})
	}).WithContext(ctx).WithTimeout(90 * time.Second).Should(Succeed())
	// Not so on the provider: milan refuses the pod of a ShadowPod until its
	// controller-manager has made the twin's default ServiceAccount (26 s
	// once, right after milan's outage), and the ShadowPod controller queues
	// the refused ShadowPods again when that ServiceAccount appears
	// (serviceaccount_test.go), so the specs' waits cover it.
}

// deployment is a Deployment of nginx pods bound for the virtual node; the
// pod webhook adds the toleration and affinity in an offloaded namespace,
// they are spelt out so the spec does not depend on it.
func deployment(ns, name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					TerminationGracePeriodSeconds: ptr.To(int64(2)),
					Containers:                    []corev1.Container{{Name: "web", Image: "nginx"}},
					Tolerations:                   []corev1.Toleration{policies.VirtualNodeToleration()},
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
							{Key: "liqo.io/type", Operator: corev1.NodeSelectorOpIn, Values: []string{"virtual-node"}}}}}}}},
				},
			},
		},
	}
}

// Census is an exact count of one namespace's pods on both sides.
type Census struct {
	// Local are rome's pods by name; Running and Terminating count them.
	Local                map[string]corev1.Pod
	Running, Terminating int
	// Remote are milan's pods in the twin namespace, by name.
	Remote map[string]corev1.Pod
	// Shadows are milan's ShadowPods in the twin namespace, by name.
	Shadows map[string]virtualkubeletv1alpha1.ShadowPod
}

// census counts namespace ns on rome and its twin twinNs on milan.
func census(ctx context.Context, g Gomega, ns, twinNs string) Census {
	c := Census{Local: map[string]corev1.Pod{}, Remote: map[string]corev1.Pod{}, Shadows: map[string]virtualkubeletv1alpha1.ShadowPod{}}
	local := &corev1.PodList{}
	g.Expect(romeC.List(ctx, local, client.InNamespace(ns))).To(Succeed())
	for _, p := range local.Items {
		c.Local[p.Name] = p
		switch {
		case !p.DeletionTimestamp.IsZero():
			c.Terminating++
		case p.Status.Phase == corev1.PodRunning:
			c.Running++
		}
	}
	remote := &corev1.PodList{}
	g.Expect(milanC.List(ctx, remote, client.InNamespace(twinNs))).To(Succeed())
	for _, p := range remote.Items {
		c.Remote[p.Name] = p
	}
	shadows := &virtualkubeletv1alpha1.ShadowPodList{}
	g.Expect(milanC.List(ctx, shadows, client.InNamespace(twinNs))).To(Succeed())
	for _, s := range shadows.Items {
		c.Shadows[s.Name] = s
	}
	return c
}

// remoteUIDs are the UIDs of milan's pods, to prove none was recreated.
func (c Census) remoteUIDs() map[string]types.UID {
	out := map[string]types.UID{}
	for n, p := range c.Remote {
		out[n] = p.UID
	}
	return out
}
