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
	"time"

	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// IdentityOf reads a cluster's identity from its committed install folder
// (the ConfigMap spillway-cluster-identity), so the lab's managers are who the
// manifests say they are.
func IdentityOf(installDir string) (Identity, error) {
	objs, err := Build(installDir)
	if err != nil {
		return Identity{}, err
	}
	for _, o := range objs {
		if o.GetKind() == "ConfigMap" && o.GetName() == "spillway-cluster-identity" {
			data, _, _ := unstructured.NestedStringMap(o.Object, "data")
			if data["CLUSTER_ID"] == "" || data["CLUSTER_NAME"] == "" {
				return Identity{}, fmt.Errorf("%s: ConfigMap spillway-cluster-identity lacks CLUSTER_ID or CLUSTER_NAME", installDir)
			}
			return Identity{ClusterID: data["CLUSTER_ID"], ClusterName: data["CLUSTER_NAME"]}, nil
		}
	}
	return Identity{}, fmt.Errorf("%s has no ConfigMap spillway-cluster-identity", installDir)
}

// WaitForObjects waits until kstatus judges every object Current, as a Flux
// Kustomization with wait: true does.
func WaitForObjects(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) error {
	rm, _, err := ResourceManager(c)
	if err != nil {
		return err
	}
	timeout := 2 * time.Minute
	if deadline, ok := ctx.Deadline(); ok {
		timeout = time.Until(deadline)
	}
	return rm.Wait(objs, ssa.WaitOptions{Interval: 500 * time.Millisecond, Timeout: timeout})
}

// Poll calls f every half second until it succeeds or ctx ends.
func Poll(ctx context.Context, f func(context.Context) error) error {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	for {
		err := f(ctx)
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out: %w", err)
		case <-t.C:
		}
	}
}

// Namespace is a bare Namespace object for Apply.
func Namespace(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("v1")
	u.SetKind("Namespace")
	u.SetName(name)
	return u
}
