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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// The lab's dynamic provisioner: rancher's local-path-provisioner, as its
// deploy/local-path-storage.yaml installs it, but run as a process of the lab.
const (
	LocalPathProcess     = "local-path-provisioner"
	LocalPathClass       = "local-path"
	LocalPathProvisioner = "rancher.io/local-path"
	localPathNamespace   = "local-path-storage"
	localPathConfigMap   = "local-path-config"
	localPathSA          = "local-path-provisioner-service-account"
)

// localPathConfig is upstream's config: every node keeps its volumes under one path.
const localPathConfig = `{"nodePathMap":[{"node":"DEFAULT_PATH_FOR_NON_LISTED_NODES","paths":["/opt/local-path-provisioner"]}]}`

// localPathHelperPod is upstream's helper pod with the lab's CompletesLabel:
// kwok runs it to Succeeded, which is all the provisioner waits for. No
// directory is made on any node (there is no container runtime); the PV the
// provisioner then creates is real API state, with its hostPath and node affinity.
var localPathHelperPod = fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata:
  name: helper-pod
  labels:
    %s: "true"
spec:
  tolerations:
  - key: node.kubernetes.io/disk-pressure
    operator: Exists
    effect: NoSchedule
  containers:
  - name: helper-pod
    image: busybox
    imagePullPolicy: IfNotPresent
`, lab.CompletesLabel)

// localPathObjects are the API objects of upstream's install but the
// Deployment and its RBAC (the process uses the admin kubeconfig).
var localPathObjects = `apiVersion: v1
kind: Namespace
metadata:
  name: local-path-storage
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: local-path-provisioner-service-account
  namespace: local-path-storage
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local-path
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
reclaimPolicy: Delete
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: local-path-config
  namespace: local-path-storage
data:
  setup: |-
    #!/bin/sh
    set -eu
    mkdir -m 0777 -p "$VOL_DIR"
  teardown: |-
    #!/bin/sh
    set -eu
    rm -rf "$VOL_DIR"
`

// InstallLocalPath installs local-path-provisioner v0.0.30 on c (built by
// hack/tools.sh local-path-provisioner) with the StorageClass local-path as
// the cluster's default, and starts it as a lab process.
func InstallLocalPath(ctx context.Context, c *lab.Cluster) error {
	bin, err := lab.Tool("local-path-provisioner", os.Stderr)
	if err != nil {
		return err
	}
	objs, err := decodeManifests(localPathObjects)
	if err != nil {
		return err
	}
	if err := applyAs(ctx, c, objs); err != nil {
		return err
	}
	dir := filepath.Join(filepath.Dir(c.Kubeconfig()), "local-path")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The provisioner reads a file as JSON only when its name ends in .json.
	config, helper := filepath.Join(dir, "config.json"), filepath.Join(dir, "helperPod.yaml")
	if err := os.WriteFile(config, []byte(localPathConfig), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(helper, []byte(localPathHelperPod), 0o644); err != nil {
		return err
	}
	args := []string{bin, "--debug", "start", "--kubeconfig=" + c.Kubeconfig(),
		"--config=" + config, "--helper-pod-file=" + helper,
		"--provisioner-name=" + LocalPathProvisioner, "--namespace=" + localPathNamespace,
		"--configmap-name=" + localPathConfigMap, "--service-account-name=" + localPathSA,
	}
	return c.StartExtra(ctx, LocalPathProcess, args, nil)
}

func decodeManifests(yaml string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(yaml), 64*1024)
	var out []*unstructured.Unstructured
	for {
		u := &unstructured.Unstructured{}
		if err := dec.Decode(&u.Object); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, err
		}
		if len(u.Object) > 0 {
			out = append(out, u)
		}
	}
}
