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

package lab_test

import (
	"context"
	"encoding/json"
	"net/netip"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// The controllers later issues rely on must run in every lab cluster: this
// checks each one by the effect only it has.
var _ = Describe("the control plane", func() {
	It("reports the pinned Kubernetes version through kubectl, client and server", func(ctx context.Context) {
		rome, err := theLab.Cluster("rome")
		Expect(err).NotTo(HaveOccurred())
		out, err := exec.CommandContext(ctx, filepath.Join(theLab.Binaries().KubeDir, "kubectl"),
			"--kubeconfig", rome.Kubeconfig(), "version", "-o", "json").Output()
		Expect(err).NotTo(HaveOccurred(), "kubectl version: %s", out)
		var v struct {
			ClientVersion struct{ GitVersion string } `json:"clientVersion"`
			ServerVersion struct{ GitVersion string } `json:"serverVersion"`
		}
		Expect(json.Unmarshal(out, &v)).To(Succeed())
		Expect(v.ClientVersion.GitVersion).To(Equal(lab.KubeVersion))
		Expect(v.ServerVersion.GitVersion).To(Equal(lab.KubeVersion))
	})

	It("runs the serviceaccount, token, endpointslice, garbage-collector and namespace controllers", func(ctx context.Context) {
		cs := clientset("rome")
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "controllers"}}
		_, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		By("serviceaccount: a new namespace gets its default ServiceAccount")
		Eventually(func() error {
			_, err := cs.CoreV1().ServiceAccounts(ns.Name).Get(ctx, "default", metav1.GetOptions{})
			return err
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		By("serviceaccount-token: a token Secret is filled in")
		_, err = cs.CoreV1().Secrets(ns.Name).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "default-token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "default"}},
			Type:       corev1.SecretTypeServiceAccountToken,
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			s, err := cs.CoreV1().Secrets(ns.Name).Get(ctx, "default-token", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(s.Data).To(HaveKey(corev1.ServiceAccountTokenKey))
		}).WithContext(ctx).WithTimeout(30 * time.Second).Should(Succeed())

		By("endpointslice: a Service selecting 2 running pods lists both")
		d := deployment("api", 2)
		d.Namespace = ns.Name
		_, err = cs.AppsV1().Deployments(ns.Name).Create(ctx, d, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		_, err = cs.CoreV1().Services(ns.Name).Create(ctx, &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "api"},
			Spec:       corev1.ServiceSpec{Selector: map[string]string{"app": "api"}, Ports: []corev1.ServicePort{{Port: 80}}},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		Eventually(func(g Gomega) {
			slices, err := cs.DiscoveryV1().EndpointSlices(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=api"})
			g.Expect(err).NotTo(HaveOccurred())
			ready := 0
			for _, s := range slices.Items {
				for _, e := range s.Endpoints {
					if ptr.Deref(e.Conditions.Ready, false) {
						ready++
					}
				}
			}
			g.Expect(ready).To(Equal(2))
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())

		By("garbage collector: deleting the Deployment removes its ReplicaSet")
		Expect(cs.AppsV1().Deployments(ns.Name).Delete(ctx, "api", metav1.DeleteOptions{
			PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)})).To(Succeed())
		Eventually(func(g Gomega) {
			rs, err := cs.AppsV1().ReplicaSets(ns.Name).List(ctx, metav1.ListOptions{LabelSelector: "app=api"})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(rs.Items).To(BeEmpty())
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())

		By("namespace: a deleted namespace is emptied and goes away")
		Expect(cs.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})).To(Succeed())
		Eventually(func() bool {
			_, err := cs.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		}).WithContext(ctx).WithTimeout(90 * time.Second).Should(BeTrue())
	}, SpecTimeout(4*time.Minute))

	It("runs nodelifecycle and node IPAM: a node reporting NotReady is tainted, and gets a pod CIDR of its cluster", func(ctx context.Context) {
		rome, err := theLab.Cluster("rome")
		Expect(err).NotTo(HaveOccurred())
		cs := clientset("rome")
		// No kwok annotation: kwok leaves this node alone, so its status is ours to set.
		node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-unmanaged"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(func(ctx context.Context) {
			Expect(cs.CoreV1().Nodes().Delete(ctx, "rome-unmanaged", metav1.DeleteOptions{})).To(Succeed())
		})
		// The controllers update the new node too (pod CIDR, taints): retry on conflict.
		Eventually(func() error {
			n, err := cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse,
				Reason: "KubeletNotReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
			_, err = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
			return err
		}).WithContext(ctx).WithTimeout(20 * time.Second).Should(Succeed())
		podCIDR := netip.MustParsePrefix(rome.PodCIDR())
		Eventually(func(g Gomega) {
			n, err := cs.CoreV1().Nodes().Get(ctx, "rome-unmanaged", metav1.GetOptions{})
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(n.Spec.Taints).To(ContainElement(HaveField("Key", corev1.TaintNodeNotReady)))
			g.Expect(n.Spec.PodCIDR).NotTo(BeEmpty())
			g.Expect(podCIDR.Overlaps(netip.MustParsePrefix(n.Spec.PodCIDR))).To(BeTrue(), "node CIDR %s outside %s", n.Spec.PodCIDR, podCIDR)
		}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	}, SpecTimeout(2*time.Minute))
})
