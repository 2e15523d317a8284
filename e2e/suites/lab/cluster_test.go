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
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/spillway-dev/spillway/e2e/lab"
)

func clientset(name string) *kubernetes.Clientset {
	c, err := theLab.Cluster(name)
	Expect(err).NotTo(HaveOccurred())
	cs, err := c.Clientset()
	Expect(err).NotTo(HaveOccurred())
	return cs
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
}

var _ = Describe("clusters", func() {
	It("run a 5-replica Deployment to 5 Running pods on kwok nodes in each cluster", func(ctx context.Context) {
		for _, name := range []string{"rome", "milan"} {
			_, err := clientset(name).AppsV1().Deployments("default").Create(ctx, deployment("web", 5), metav1.CreateOptions{})
			Expect(err).NotTo(HaveOccurred())
		}
		for _, name := range []string{"rome", "milan"} {
			cs := clientset(name)
			Eventually(func(g Gomega) {
				pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
				g.Expect(err).NotTo(HaveOccurred())
				running := 0
				for _, p := range pods.Items {
					if p.Status.Phase != corev1.PodRunning {
						continue
					}
					node, err := cs.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
					g.Expect(err).NotTo(HaveOccurred())
					g.Expect(node.Annotations).To(HaveKeyWithValue(lab.KwokNodeAnnotation, "fake"))
					g.Expect(p.Status.PodIP).NotTo(BeEmpty())
					running++
				}
				g.Expect(running).To(Equal(5), "cluster %s", name)
			}).WithContext(ctx).WithTimeout(60 * time.Second).WithPolling(500 * time.Millisecond).Should(Succeed())
		}
	}, SpecTimeout(2*time.Minute))

	It("gives each cluster its own CIDRs, CA and the node shape it was asked for", func(ctx context.Context) {
		rome, _ := theLab.Cluster("rome")
		milan, _ := theLab.Cluster("milan")
		Expect(rome.PodCIDR()).NotTo(Equal(milan.PodCIDR()))
		nodes, err := clientset("milan").CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(nodes.Items).To(HaveLen(3))
		for _, n := range nodes.Items {
			Expect(n.Labels).To(HaveKeyWithValue("topology.liqo.io/region", "north"))
			gpu := n.Status.Allocatable["nvidia.com/gpu"]
			Expect(gpu.Cmp(resource.MustParse("1"))).To(Equal(0))
		}
		// rome's admin identity is not trusted by milan's API server.
		romeCfg, err := rome.RESTConfig()
		Expect(err).NotTo(HaveOccurred())
		romeCfg.Host = milan.Server()
		romeCfg.Insecure, romeCfg.CAData, romeCfg.CAFile = true, nil, ""
		cross, err := kubernetes.NewForConfig(romeCfg)
		Expect(err).NotTo(HaveOccurred())
		_, err = cross.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		Expect(err).To(HaveOccurred())
	})

	It("stops answering while its kube-apiserver is stopped and serves the same objects after a start", func(ctx context.Context) {
		rome, err := theLab.Cluster("rome")
		Expect(err).NotTo(HaveOccurred())
		cs := clientset("rome")
		cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "survivor"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())

		Expect(rome.Stop(lab.APIServer)).To(Succeed())
		Expect(rome.Running(lab.APIServer)).To(BeFalse())
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = cs.CoreV1().ConfigMaps("default").Get(short, "survivor", metav1.GetOptions{})
		cancel()
		Expect(err).To(HaveOccurred(), "rome answered with its API server stopped")

		Expect(rome.Start(ctx, lab.APIServer)).To(Succeed())
		got, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "survivor", metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(got.UID).To(Equal(cm.UID))
		Expect(got.Data).To(HaveKeyWithValue("k", "v"))
	}, SpecTimeout(2*time.Minute))

	It("restarts one component with Restart and leaves the others running", func(ctx context.Context) {
		milan, _ := theLab.Cluster("milan")
		Expect(milan.Restart(ctx, lab.Scheduler)).To(Succeed())
		for _, comp := range lab.Components {
			Expect(milan.Running(comp)).To(BeTrue(), comp)
		}
	}, SpecTimeout(time.Minute))
})

var _ = Describe("bad input", func() {
	It("names the clusters that exist when asked for an unknown one", func() {
		_, err := theLab.Cluster("paris")
		Expect(err).To(MatchError(And(ContainSubstring(`no cluster "paris"`), ContainSubstring("rome, milan"))))
	})

	It("names an unknown component", func(ctx context.Context) {
		rome, _ := theLab.Cluster("rome")
		Expect(rome.Start(ctx, "kubelet")).To(MatchError(ContainSubstring(`unknown component "kubelet"`)))
	})

	It("refuses a second lab-up with other clusters, changing nothing", func(ctx context.Context) {
		_, err := lab.Up(ctx, lab.Options{Dir: theLab.Dir(), PortBase: portBase}, lab.MustSpecs("rome paris"))
		Expect(err).To(MatchError(ContainSubstring("make lab-down")))
		rome, _ := theLab.Cluster("rome")
		Expect(rome.CheckReadyz(ctx)).To(Succeed())
	})

	It("changes nothing when lab-up runs again with the same clusters", func(ctx context.Context) {
		before := pids()
		again, err := lab.Up(ctx, lab.Options{Dir: theLab.Dir(), PortBase: portBase}, lab.MustSpecs("rome milan"))
		Expect(err).NotTo(HaveOccurred())
		again.Close()
		Expect(pids()).To(Equal(before))
	})

	It("reports a taken port and leaves nothing half-started", func(ctx context.Context) {
		// A new lab whose block starts on rome's etcd port: its etcd cannot bind.
		rome, _ := theLab.Cluster("rome")
		dir := GinkgoT().TempDir()
		_, err := lab.Up(ctx, lab.Options{Dir: dir, PortBase: rome.Ports().EtcdClient, Binaries: theLab.Binaries()}, lab.MustSpecs("oslo"))
		Expect(err).To(MatchError(And(ContainSubstring("port already in use"), ContainSubstring(fmt.Sprint(rome.Ports().EtcdClient)))))
		_, err = lab.Attach(lab.Options{Dir: dir})
		Expect(err).To(MatchError(lab.ErrNoLab), "a failed lab-up left state behind")
		Expect(rome.CheckReadyz(ctx)).To(Succeed())
	})
})

func pids() map[string]bool {
	out := map[string]bool{}
	for _, c := range theLab.Clusters() {
		for _, comp := range lab.Components {
			out[c.Name+"/"+comp] = c.Running(comp)
		}
	}
	return out
}
