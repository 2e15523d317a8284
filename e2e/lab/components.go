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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Component names, as used by Stop/Start/Restart and in log file names.
const (
	Etcd              = "etcd"
	APIServer         = "kube-apiserver"
	ControllerManager = "kube-controller-manager"
	Scheduler         = "kube-scheduler"
	Kwok              = "kwok"
	// PeerLink is the relay the cluster's peers reach its API server through (peerlink.go).
	PeerLink = "peer-link"
)

// Components lists them in start order.
var Components = []string{Etcd, APIServer, PeerLink, ControllerManager, Scheduler, Kwok}

// Binaries locates the executables the lab runs.
type Binaries struct {
	// KubeDir holds etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl.
	KubeDir string `json:"kubeDir"`
	Kwok    string `json:"kwok"`
	// Lab is spillway-lab, which runs the peer link.
	Lab string `json:"lab"`
	// KwokStages is the kwok module's kustomize/stage directory.
	KwokStages string `json:"kwokStages"`
}

// ClientQPS is the client rate limit of controller-manager and scheduler. It is
// explicit (not the upstream default of 20) because it paces pod creation, and
// a benchmark comparing two clusters must run both at the same setting.
type ClientQPS struct {
	QPS   int `json:"qps"`
	Burst int `json:"burst"`
}

// EnvAPIServerProfiling names the variable that, set to 1, starts the lab's
// API servers with --profiling, so a benchmark can read where their CPU goes
// (`kubectl get --raw '/debug/pprof/profile?seconds=60'`). Off by default:
// the endpoints serve any authenticated user with the right RBAC, and the
// suites need none of it.
const EnvAPIServerProfiling = "SPILLWAY_LAB_APISERVER_PROFILING"

// apiServerProfiling is the API server's --profiling, from EnvAPIServerProfiling.
func apiServerProfiling() string {
	return "--profiling=" + strconv.FormatBool(os.Getenv(EnvAPIServerProfiling) == "1")
}

// DefaultClientQPS is fast enough for thousands of pods on two cores.
var DefaultClientQPS = ClientQPS{QPS: 100, Burst: 200}

// componentArgs returns the command line of one component of c.
func (c *Cluster) componentArgs(component string) ([]string, error) {
	pki := c.path("pki")
	bin := func(n string) string { return filepath.Join(c.lab.bins.KubeDir, n) }
	qps, burst := strconv.Itoa(c.state.QPS.QPS), strconv.Itoa(c.state.QPS.Burst)
	p := c.state.Ports
	switch component {
	case Etcd:
		peer := "http://127.0.0.1:" + strconv.Itoa(p.EtcdPeer)
		client := "http://127.0.0.1:" + strconv.Itoa(p.EtcdClient)
		return []string{bin("etcd"), "--name=" + c.Name, "--data-dir=" + c.path("etcd"),
			"--listen-client-urls=" + client, "--advertise-client-urls=" + client,
			"--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
			"--initial-cluster=" + c.Name + "=" + peer, "--initial-cluster-state=new",
			// The lab trades durability for speed: it is thrown away with lab-down.
			"--unsafe-no-fsync", "--quota-backend-bytes=8589934592", "--log-level=warn",
			"--snapshot-count=10000",
		}, nil
	case APIServer:
		return []string{bin("kube-apiserver"),
			"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(p.EtcdClient),
			"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
			"--secure-port=" + strconv.Itoa(p.APIServer),
			"--tls-cert-file=" + filepath.Join(pki, "apiserver.crt"), "--tls-private-key-file=" + filepath.Join(pki, "apiserver.key"),
			"--client-ca-file=" + filepath.Join(pki, "ca.crt"),
			"--kubelet-client-certificate=" + filepath.Join(pki, "apiserver-kubelet-client.crt"),
			"--kubelet-client-key=" + filepath.Join(pki, "apiserver-kubelet-client.key"),
			"--service-account-key-file=" + filepath.Join(pki, "sa.pub"),
			"--service-account-signing-key-file=" + filepath.Join(pki, "sa.key"),
			"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
			"--service-cluster-ip-range=" + c.state.CIDRs.Service,
			"--authorization-mode=Node,RBAC", "--allow-privileged=true",
			// Kubernetes evicts pods from a NotReady node after 300 s; the lab
			// after 30, so a CI-length fault outlasts it (docs/faults.md).
			"--default-not-ready-toleration-seconds=" + strconv.Itoa(DefaultTolerationSeconds),
			"--default-unreachable-toleration-seconds=" + strconv.Itoa(DefaultTolerationSeconds),
			apiServerProfiling(), "--v=1",
		}, nil
	case PeerLink:
		if c.lab.bins.Lab == "" {
			return nil, fmt.Errorf("cluster %q: the lab state names no spillway-lab binary for the peer link: it predates the link; run `make lab-down` and `make lab-up`", c.Name)
		}
		return []string{c.lab.bins.Lab, "peer-link",
			"--listen=127.0.0.1:" + strconv.Itoa(p.PeerLink), "--upstream=127.0.0.1:" + strconv.Itoa(p.APIServer),
			"--control=127.0.0.1:" + strconv.Itoa(p.PeerLinkControl),
		}, nil
	case ControllerManager:
		return []string{bin("kube-controller-manager"),
			"--kubeconfig=" + c.componentKubeconfig(ControllerManager),
			"--authentication-kubeconfig=" + c.componentKubeconfig(ControllerManager),
			"--authorization-kubeconfig=" + c.componentKubeconfig(ControllerManager),
			"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(p.ControllerManager),
			"--leader-elect=false", "--controllers=*",
			"--use-service-account-credentials=true",
			"--service-account-private-key-file=" + filepath.Join(pki, "sa.key"),
			"--root-ca-file=" + filepath.Join(pki, "ca.crt"),
			"--cluster-signing-cert-file=" + filepath.Join(pki, "ca.crt"),
			"--cluster-signing-key-file=" + filepath.Join(pki, "ca.key"),
			"--allocate-node-cidrs=true", "--cluster-cidr=" + c.state.CIDRs.Pod, "--node-cidr-mask-size=24",
			"--service-cluster-ip-range=" + c.state.CIDRs.Service,
			"--kube-api-qps=" + qps, "--kube-api-burst=" + burst,
			"--concurrent-deployment-syncs=10", "--concurrent-replicaset-syncs=10",
			"--profiling=false", "--v=1",
		}, nil
	case Scheduler:
		cfg, err := c.writeSchedulerConfig()
		if err != nil {
			return nil, err
		}
		return []string{bin("kube-scheduler"), "--config=" + cfg,
			"--authentication-kubeconfig=" + c.componentKubeconfig(Scheduler),
			"--authorization-kubeconfig=" + c.componentKubeconfig(Scheduler),
			"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(p.Scheduler), "--v=1",
		}, nil
	case Kwok:
		stages, err := c.writeKwokStages()
		if err != nil {
			return nil, err
		}
		return []string{c.lab.bins.Kwok, "--kubeconfig=" + c.componentKubeconfig(Kwok),
			"--config=" + stages,
			"--manage-all-nodes=false", "--manage-nodes-with-annotation-selector=" + KwokNodeAnnotation + "=fake",
			"--server-address=127.0.0.1:" + strconv.Itoa(p.Kwok),
			"--node-lease-duration-seconds=40", "--node-ip=127.0.0.1",
			// kwok is the nodes' kubelet API: nodes advertise its port, and it
			// speaks TLS as the API server expects of kubelets (which it does not
			// verify here: no --kubelet-certificate-authority), so `kubectl logs`
			// works in the lab. Any serving certificate for 127.0.0.1 does.
			"--node-port=" + strconv.Itoa(p.Kwok),
			"--tls-cert-file=" + filepath.Join(pki, "apiserver.crt"), "--tls-private-key-file=" + filepath.Join(pki, "apiserver.key"),
		}, nil
	}
	return nil, fmt.Errorf("unknown component %q: use one of %s", component, strings.Join(Components, ", "))
}

// DefaultTolerationSeconds is how long the lab's pods tolerate a NotReady or
// unreachable node unless they say otherwise: the API server's
// DefaultTolerationSeconds admission adds it (Kubernetes' default is 300).
const DefaultTolerationSeconds = 30

// KwokNodeAnnotation marks the nodes kwok simulates.
const KwokNodeAnnotation = "kwok.x-k8s.io/node"

func (c *Cluster) writeSchedulerConfig() (string, error) {
	path := c.path("kube-scheduler.yaml")
	cfg := fmt.Sprintf(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection:
  kubeconfig: %q
  qps: %d
  burst: %d
leaderElection:
  leaderElect: false
`, c.componentKubeconfig(Scheduler), c.state.QPS.QPS, c.state.QPS.Burst)
	return path, os.WriteFile(path, []byte(cfg), 0o644)
}

// kwokStageFiles are the upstream stages: nodes become Ready at once and renew
// their leases (so nodelifecycle keeps them Ready), pods go Running at once.
var kwokStageFiles = []string{
	"node/fast/node-initialize.yaml",
	"node/heartbeat-with-lease/node-heartbeat-with-lease.yaml",
	"pod/fast/pod-ready.yaml",
	"pod/fast/pod-complete.yaml",
	"pod/fast/pod-delete.yaml",
}

func (c *Cluster) writeKwokStages() (string, error) {
	var docs []string
	for _, f := range kwokStageFiles {
		data, err := os.ReadFile(filepath.Join(c.lab.bins.KwokStages, f))
		if err != nil {
			return "", fmt.Errorf("kwok stage %s: %w (run hack/tools.sh kwok-stages to fetch the kwok module)", f, err)
		}
		docs = append(docs, strings.TrimSpace(string(data)))
	}
	logs, err := c.writeKwokLogs()
	if err != nil {
		return "", err
	}
	docs = append(docs, logs, completesStage)
	if execs := c.state.Spec.ExecContainers; len(execs) > 0 {
		rule, err := KwokExecRule(c.Name, c.path(), execs)
		if err != nil {
			return "", err
		}
		docs = append(docs, rule)
	}
	path := c.path("kwok-stages.yaml")
	return path, os.WriteFile(path, []byte(strings.Join(docs, "\n---\n")+"\n"), 0o644)
}

// KwokLogLine is the one line every container of a lab cluster logs, so a test
// can tell which cluster answered `kubectl logs`.
func KwokLogLine(cluster string) string { return "kwok on " + cluster + ": simulated container log" }

// writeKwokLogs writes a CRI-format log file and the kwok ClusterLogs that
// serves it for every container.
func (c *Cluster) writeKwokLogs() (string, error) {
	file := c.path("kwok-container.log")
	line := "2026-01-01T00:00:00.000000000Z stdout F " + KwokLogLine(c.Name) + "\n"
	if err := os.WriteFile(file, []byte(line), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: lab-logs
spec:
  logs:
  - logsFile: %q`, file), nil
}
