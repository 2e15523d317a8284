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

package framework

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// ManagerProcess is the name of the Spillway manager among a cluster's processes.
const ManagerProcess = "spillway-controller"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// Binaries builds the Spillway commands once per test process and returns the
// directory holding them.
func Binaries() (string, error) {
	buildOnce.Do(func() {
		root, err := lab.RepoRoot()
		if err != nil {
			buildErr = err
			return
		}
		binDir = filepath.Join(root, "bin", "e2e")
		cmd := exec.Command("go", "build", "-o", binDir+"/", "./cmd/...", "./e2e/lab/cmd/...")
		cmd.Dir, cmd.Stdout, cmd.Stderr = root, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			buildErr = fmt.Errorf("building ./cmd/... and ./e2e/lab/cmd/...: %w", err)
		}
	})
	return binDir, buildErr
}

// webhookPortIndex is the manager's webhook port among the cluster's extra ports.
const webhookPortIndex = 5

// EnvManagerMemoryLimit names the variable whose value, when set, every
// manager the lab starts gets as GOMEMLIMIT: the collector's limit itself,
// which the Deployment derives from its container's memory limit
// (kustomize/manager/deployment.yaml, cmd/spillway-controller/memlimit.go).
// Unset, the lab's managers run without one, so the benchmarks measure the
// collector's default pacing unless asked to measure a limit (target 3 of
// issue 17).
const EnvManagerMemoryLimit = "SPILLWAY_LAB_MANAGER_GOMEMLIMIT"

// managerEnv is what a lab manager adds to the lab's environment.
func managerEnv() []string {
	if limit := os.Getenv(EnvManagerMemoryLimit); limit != "" {
		return []string{"GOMEMLIMIT=" + limit}
	}
	return nil
}

// Identity is how a cluster's manager introduces itself.
type Identity struct {
	ClusterID, ClusterName string
}

// StartManager runs spillway-controller against cluster c, as the manager
// Deployment would, and waits for its health probe.
func StartManager(ctx context.Context, c *lab.Cluster, id Identity, extraArgs ...string) error {
	dir, err := Binaries()
	if err != nil {
		return err
	}
	metricsPort, err := c.ExtraPort(0)
	if err != nil {
		return err
	}
	probePort, _ := c.ExtraPort(1)
	webhookPort, _ := c.ExtraPort(webhookPortIndex)
	// The virtual kubelet API (logs, exec); index 9 leaves 2-8 to other servers.
	kubeletPort, _ := c.ExtraPort(9)
	args := append([]string{filepath.Join(dir, "spillway-controller"),
		"--kubeconfig=" + c.Kubeconfig(),
		"--cluster-id=" + id.ClusterID, "--cluster-name=" + id.ClusterName,
		"--api-server-url=" + c.PeerServer(), "--namespace=liqo",
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
		"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(probePort),
		"--virtual-node-probe-interval=2s", "--zap-log-level=info",
		// The API server dials the webhooks on loopback; each cluster keeps its certificate files apart.
		"--webhook-port=" + strconv.Itoa(webhookPort), "--webhook-bind-host=127.0.0.1",
		"--webhook-url=https://127.0.0.1:" + strconv.Itoa(webhookPort), "--webhook-cert-dir=" + filepath.Join(filepath.Dir(c.Kubeconfig()), "webhook-certs"),
		"--virtual-kubelet-port=" + strconv.Itoa(kubeletPort),
	}, extraArgs...)
	return c.StartExtraWithEnv(ctx, ManagerProcess, args, managerEnv(), lab.HTTPReady("http://127.0.0.1:"+strconv.Itoa(probePort)+"/readyz"))
}

// Client returns a controller-runtime client for c with Spillway's kinds.
func Client(c *lab.Cluster) (client.Client, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	return client.New(cfg, client.Options{Scheme: Scheme()})
}
