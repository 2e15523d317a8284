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
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// QuickStart installs Spillway on rome and milan and peers them from the
// committed clusters/ folders: CRDs, managers, External Secrets with the
// fleet's store, milan's config, rome's config, until liqo-milan is Ready.
// The identity crosses through milan's PushSecret and rome's ExternalSecret.
// keep filters the Spillway objects and workloads applied (nil applies all);
// the External Secrets objects are always applied.
func QuickStart(ctx context.Context, root string, rome, milan *lab.Cluster, keep func(*unstructured.Unstructured) bool) error {
	return QuickStartWith(ctx, root, rome, milan, keep, nil)
}

// QuickStartWith is QuickStart with extra manager flags per cluster (nil for none).
func QuickStartWith(ctx context.Context, root string, rome, milan *lab.Cluster, keep func(*unstructured.Unstructured) bool,
	managerArgs func(*lab.Cluster) []string) error {
	// Both clusters at once: each step is mostly a wait (CRDs established, a
	// manager Ready), and one cluster at a time every suite paid both.
	eg, ectx := errgroup.WithContext(ctx)
	for _, c := range []*lab.Cluster{rome, milan} {
		eg.Go(func() error {
			if err := ApplyDir(ectx, c, filepath.Join(root, "kustomize/crd")); err != nil {
				return err
			}
			if err := Apply(ectx, c, []*unstructured.Unstructured{Namespace("liqo")}); err != nil {
				return err
			}
			id, err := IdentityOf(filepath.Join(root, "clusters", c.Name, "install"))
			if err != nil {
				return err
			}
			var extra []string
			if managerArgs != nil {
				extra = managerArgs(c)
			}
			return StartManager(ectx, c, id, extra...)
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	if err := EnsureExternalSecrets(ctx, rome, milan); err != nil {
		return err
	}
	milanObjs, err := configObjects(root, "milan", keep)
	if err != nil {
		return err
	}
	if err := Apply(ctx, milan, milanObjs); err != nil {
		return err
	}
	if err := WaitForStoreKey(ctx, rome, manifests.IdentityKey("milan", "rome")); err != nil {
		return fmt.Errorf("waiting for milan's PushSecret to hand rome's identity to the store: %w", err)
	}
	romeC, err := Client(rome)
	if err != nil {
		return err
	}
	romeObjs, err := configObjects(root, "rome", keep)
	if err != nil {
		return err
	}
	if err := Apply(ctx, rome, romeObjs); err != nil {
		return err
	}
	return Poll(ctx, func(ctx context.Context) error { return NodeReady(ctx, romeC, "liqo-milan") })
}

func configObjects(root, cluster string, keep func(*unstructured.Unstructured) bool) ([]*unstructured.Unstructured, error) {
	objs, err := Build(filepath.Join(root, "clusters", cluster, "config"))
	if err != nil || keep == nil {
		return objs, err
	}
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if keep(o) || strings.HasPrefix(o.GetAPIVersion(), "external-secrets.io/") {
			out = append(out, o)
		}
	}
	return out, nil
}

// NodeReady fails unless the node exists and is Ready.
func NodeReady(ctx context.Context, c client.Client, name string) error {
	n := &corev1.Node{}
	if err := c.Get(ctx, client.ObjectKey{Name: name}, n); err != nil {
		return err
	}
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("node %s is not Ready", name)
}
