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
	"encoding/json"
	"fmt"
)

// KwokExecClusterEnv is set, to the lab cluster's name, in the environment of
// every command kwok runs for `kubectl exec`, so a test can tell which
// cluster answered an exec (`printenv SPILLWAY_LAB_CLUSTER`).
const KwokExecClusterEnv = "SPILLWAY_LAB_CLUSTER"

// KwokExecRule is the kwok ClusterExec (kwok.x-k8s.io/v1alpha1, read from
// kwok's --config file, not from a CRD) that makes kwok answer `kubectl exec`
// into the given containers of every pod of cluster: kwok has no container,
// so it runs the requested command itself, on the lab's host, as the lab's
// user, in workDir, with KwokExecClusterEnv=cluster added to its own
// environment; stdin, stdout, stderr and the exit code are the command's.
// Exec into any other container is refused by kwok (`no exec found for
// container "web" in pod ...`). Opt-in per cluster (ClusterSpec.ExecContainers,
// exec=<container>), since whoever may exec into such a pod runs commands on
// the host: the lab's API servers listen on loopback only.
func KwokExecRule(cluster, workDir string, containers []string) (string, error) {
	// JSON is YAML: marshalling quotes whatever the names and paths hold.
	names, err := json.Marshal(containers)
	if err != nil {
		return "", err
	}
	dir, err := json.Marshal(workDir)
	if err != nil {
		return "", err
	}
	value, err := json.Marshal(cluster)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(`apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterExec
metadata:
  name: lab-exec
spec:
  execs:
  - containers: %s
    local:
      workDir: %s
      envs:
      - name: %s
        value: %s`, names, dir, KwokExecClusterEnv, value), nil
}
