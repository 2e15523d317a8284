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

package lab

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ClusterState is what the state file records about one cluster.
type ClusterState struct {
	Spec      ClusterSpec         `json:"spec"`
	Index     int                 `json:"index"`
	Ports     Ports               `json:"ports"`
	CIDRs     CIDRs               `json:"cidrs"`
	QPS       ClientQPS           `json:"qps"`
	Processes map[string]*Process `json:"processes"`
}

// Cluster is one running lab cluster.
type Cluster struct {
	Name  string
	lab   *Lab
	state *ClusterState
}

func (c *Cluster) path(elem ...string) string {
	return filepath.Join(append([]string{c.lab.dir, c.Name}, elem...)...)
}

// LabBinaries are the binaries of the lab the cluster belongs to (kubectl among them).
func (c *Cluster) LabBinaries() Binaries { return c.lab.bins }

// Kubeconfig is the path of the cluster-admin kubeconfig.
func (c *Cluster) Kubeconfig() string { return c.path("kubeconfig") }

// Server is the API server URL.
func (c *Cluster) Server() string {
	return "https://127.0.0.1:" + strconv.Itoa(c.state.Ports.APIServer)
}

// PodCIDR is the cluster's pod range.
func (c *Cluster) PodCIDR() string { return c.state.CIDRs.Pod }

// ServiceCIDR is the cluster's Service range.
func (c *Cluster) ServiceCIDR() string { return c.state.CIDRs.Service }

// Spec is what the cluster was started with.
func (c *Cluster) Spec() ClusterSpec { return c.state.Spec }

// ClientQPS is the client rate limit the cluster's controller-manager and
// scheduler run with.
func (c *Cluster) ClientQPS() ClientQPS { return c.state.QPS }

// Ports are the cluster's loopback ports.
func (c *Cluster) Ports() Ports { return c.state.Ports }

// LogPath is the log file of one component.
func (c *Cluster) LogPath(component string) string { return c.path(component + ".log") }

// RESTConfig returns an admin config for the cluster.
func (c *Cluster) RESTConfig() (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
	if err != nil {
		return nil, fmt.Errorf("cluster %q: loading %s: %w", c.Name, c.Kubeconfig(), err)
	}
	cfg.QPS, cfg.Burst = 100, 200
	return cfg, nil
}

// Clientset returns an admin clientset for the cluster.
func (c *Cluster) Clientset() (*kubernetes.Clientset, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

func (c *Cluster) componentKubeconfig(component string) string {
	return c.path("pki", component+".kubeconfig")
}

// writeKubeconfigs writes the admin kubeconfig and one per component, each
// authenticating with its own client certificate.
func (c *Cluster) writeKubeconfigs() error {
	pki := c.path("pki")
	write := func(path, certName string) error {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters[c.Name] = &clientcmdapi.Cluster{Server: c.Server(), CertificateAuthority: filepath.Join(pki, "ca.crt")}
		cfg.AuthInfos[c.Name] = &clientcmdapi.AuthInfo{
			ClientCertificate: filepath.Join(pki, certName+".crt"), ClientKey: filepath.Join(pki, certName+".key"),
		}
		cfg.Contexts[c.Name] = &clientcmdapi.Context{Cluster: c.Name, AuthInfo: c.Name}
		cfg.CurrentContext = c.Name
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			return err
		}
		// Embed the files so the admin kubeconfig can be copied elsewhere and still work.
		loaded, err := clientcmd.LoadFromFile(path)
		if err != nil {
			return err
		}
		if err := clientcmdapi.FlattenConfig(loaded); err != nil {
			return err
		}
		return clientcmd.WriteToFile(*loaded, path)
	}
	for _, comp := range []string{ControllerManager, Scheduler, Kwok} {
		if err := write(c.componentKubeconfig(comp), comp); err != nil {
			return err
		}
	}
	return write(c.Kubeconfig(), "admin")
}

// tlsClient calls the apiserver's health endpoints with the admin identity.
func (c *Cluster) tlsClient() (*http.Client, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	tlsCfg, err := rest.TLSConfigFor(cfg)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsCfg}}, nil
}

// checkEtcd passes when etcd answers /health.
func (c *Cluster) checkEtcd(ctx context.Context) error {
	return httpOK(ctx, &http.Client{Timeout: 2 * time.Second}, "http://127.0.0.1:"+strconv.Itoa(c.state.Ports.EtcdClient)+"/health")
}

// CheckReadyz passes when the API server's /readyz passes.
func (c *Cluster) CheckReadyz(ctx context.Context) error {
	hc, err := c.tlsClient()
	if err != nil {
		return err
	}
	return httpOK(ctx, hc, c.Server()+"/readyz")
}

// checkSecurePort passes when a component's secure health endpoint answers;
// its serving certificate is self-signed, so only reachability is checked.
func checkSecurePort(port int) func(context.Context) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback health probe of a self-signed component
	}}
	return func(ctx context.Context) error {
		return httpOK(ctx, hc, "https://127.0.0.1:"+strconv.Itoa(port)+"/healthz")
	}
}

func httpOK(ctx context.Context, hc *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}

// NodeName is the name of the i-th simulated node of the cluster.
func (c *Cluster) NodeName(i int) string { return fmt.Sprintf("%s-worker-%d", c.Name, i) }

// EnsureNodes creates the simulated nodes the spec asks for that do not exist yet.
func (c *Cluster) EnsureNodes(ctx context.Context) error {
	return c.AddNodes(ctx, 0, c.state.Spec.Nodes, c.state.Spec.Capacity, c.state.Spec.Labels)
}

// AddNodes creates nodes [from, from+count) with the given capacity and labels;
// existing ones are left alone. Later suites grow a provider with it.
func (c *Cluster) AddNodes(ctx context.Context, from, count int, capacity, labels map[string]string) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	resources := corev1.ResourceList{}
	for _, k := range sortedKeys(capacity) {
		q, err := resource.ParseQuantity(capacity[k])
		if err != nil {
			return fmt.Errorf("node capacity %s=%q: %w", k, capacity[k], err)
		}
		resources[corev1.ResourceName(k)] = q
	}
	for i := from; i < from+count; i++ {
		node := c.nodeObject(c.NodeName(i), resources, labels)
		if _, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("cluster %q: creating node %s: %w", c.Name, node.Name, err)
		}
	}
	return nil
}

func (c *Cluster) nodeObject(name string, resources corev1.ResourceList, labels map[string]string) *corev1.Node {
	l := map[string]string{
		"type": "kwok", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
		"kubernetes.io/arch": "amd64", "node-role.kubernetes.io/worker": "",
	}
	for k, v := range labels {
		l[k] = v
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l, Annotations: map[string]string{KwokNodeAnnotation: "fake"}},
		Status: corev1.NodeStatus{
			Capacity: resources.DeepCopy(), Allocatable: resources.DeepCopy(),
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "kwok-" + KubeVersion, OperatingSystem: "linux", Architecture: "amd64"},
		},
	}
}

// checkNodesReady passes when every node the spec asks for is Ready.
func (c *Cluster) checkNodesReady(ctx context.Context) error {
	cs, err := c.Clientset()
	if err != nil {
		return err
	}
	nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	ready := 0
	for _, n := range nodes.Items {
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
	}
	if ready < c.state.Spec.Nodes {
		return fmt.Errorf("%d of %d nodes Ready", ready, c.state.Spec.Nodes)
	}
	return nil
}

func (c *Cluster) checkFor(component string) func(context.Context) error {
	switch component {
	case Etcd:
		return c.checkEtcd
	case APIServer:
		return c.CheckReadyz
	case ControllerManager:
		return checkSecurePort(c.state.Ports.ControllerManager)
	case Scheduler:
		return checkSecurePort(c.state.Ports.Scheduler)
	case PeerLink:
		return func(ctx context.Context) error { _, err := c.LinkStatus(ctx); return err }
	}
	// kwok has no health endpoint we rely on; nodes turning Ready is its check.
	return func(context.Context) error { return nil }
}

// Start starts one stopped component and waits until it is healthy.
func (c *Cluster) Start(ctx context.Context, component string) error {
	if p := c.state.Processes[component]; p.Alive() {
		return nil
	}
	args, err := c.componentArgs(component)
	if err != nil {
		return err
	}
	if err := c.checkPortsFree(component); err != nil {
		return err
	}
	p, err := startProcess(args, nil, c.LogPath(component))
	if err != nil {
		return err
	}
	c.lab.mu.Lock()
	c.state.Processes[component] = p
	c.lab.mu.Unlock()
	if err := c.lab.save(); err != nil {
		return err
	}
	what := fmt.Sprintf("cluster %q: waiting for %s", c.Name, component)
	return waitFor(ctx, what, map[string]*Process{component: p}, c.checkFor(component))
}

// Stop stops one component; the others keep running. Stopping the API server
// makes the cluster stop answering, as a provider cut off from its consumer.
func (c *Cluster) Stop(component string) error {
	if _, err := c.componentArgs(component); err != nil && component != Kwok && component != Scheduler {
		return err
	}
	p, ok := c.state.Processes[component]
	if !ok {
		return fmt.Errorf("cluster %q has no %s process recorded", c.Name, component)
	}
	return p.Stop(15 * time.Second)
}

// Restart stops and starts one component.
func (c *Cluster) Restart(ctx context.Context, component string) error {
	if err := c.Stop(component); err != nil {
		return err
	}
	return c.Start(ctx, component)
}

// Running reports whether a component's process is alive.
func (c *Cluster) Running(component string) bool {
	return c.state.Processes[component].Alive()
}

func (c *Cluster) checkPortsFree(component string) error {
	p := c.state.Ports
	var ports []int
	switch component {
	case Etcd:
		ports = []int{p.EtcdClient, p.EtcdPeer}
	case APIServer:
		ports = []int{p.APIServer}
	case ControllerManager:
		ports = []int{p.ControllerManager}
	case Scheduler:
		ports = []int{p.Scheduler}
	case Kwok:
		ports = []int{p.Kwok}
	case PeerLink:
		ports = []int{p.PeerLink, p.PeerLinkControl}
	}
	for _, port := range ports {
		if err := CheckPortFree(port); err != nil {
			return fmt.Errorf("cluster %q: %s needs %w; stop what listens there (`ss -ltnp | grep %d`) or start the lab with another --port-base",
				c.Name, component, err, port)
		}
	}
	return nil
}

// startAll brings every component up in order, then the nodes.
func (c *Cluster) startAll(ctx context.Context) error {
	if err := os.MkdirAll(c.path(), 0o755); err != nil {
		return err
	}
	svcIP, err := FirstServiceIP(c.state.CIDRs.Service)
	if err != nil {
		return err
	}
	if err := GeneratePKI(c.path("pki"), c.Name, svcIP); err != nil {
		return err
	}
	if err := c.writeKubeconfigs(); err != nil {
		return err
	}
	for _, comp := range Components {
		if err := c.Start(ctx, comp); err != nil {
			return err
		}
	}
	if err := c.EnsureNodes(ctx); err != nil {
		return err
	}
	return waitFor(ctx, fmt.Sprintf("cluster %q: waiting for nodes Ready", c.Name), c.state.Processes, c.checkNodesReady)
}
