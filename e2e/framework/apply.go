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

// Package framework is what e2e suites share on top of the lab: building the
// Spillway binaries, running a manager per cluster, the fleet's git server,
// real Flux (source-controller, kustomize-controller) and External Secrets as
// lab processes, and, for suites that test one controller at a time, applying
// a folder of clusters/ the way Flux does.
package framework

import (
	"context"
	"fmt"
	"time"

	"github.com/fluxcd/cli-utils/pkg/kstatus/polling"
	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/spillway-dev/spillway/e2e/lab"
)

// FluxFieldManager is the field manager kustomize-controller applies with; the
// suites apply as Flux does so drift checks see what Flux would see.
const FluxFieldManager = "kustomize-controller"

// Build renders a kustomization directory, as `kustomize build` does.
func Build(dir string) ([]*unstructured.Unstructured, error) {
	resMap, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	var out []*unstructured.Unstructured
	for _, r := range resMap.Resources() {
		// Through JSON: kyaml's maps hold plain ints, which unstructured cannot deep-copy.
		data, err := r.MarshalJSON()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(data); err != nil {
			return nil, fmt.Errorf("kustomize build %s: %s: %w", dir, r.CurId(), err)
		}
		out = append(out, u)
	}
	return out, nil
}

// ResourceManager returns Flux's server-side apply engine for a cluster.
func ResourceManager(c *lab.Cluster) (*ssa.ResourceManager, client.Client, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, nil, err
	}
	return resourceManagerFor(cfg, ssa.Owner{Field: FluxFieldManager, Group: "kustomize.toolkit.fluxcd.io"})
}

func resourceManagerFor(cfg *rest.Config, owner ssa.Owner) (*ssa.ResourceManager, client.Client, error) {
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, nil, err
	}
	mapper, err := apiutil.NewDynamicRESTMapper(cfg, httpClient)
	if err != nil {
		return nil, nil, err
	}
	cl, err := client.New(cfg, client.Options{Mapper: mapper, Scheme: Scheme()})
	if err != nil {
		return nil, nil, err
	}
	poller := polling.NewStatusPoller(cl, mapper, polling.Options{})
	return ssa.NewResourceManager(cl, poller, owner), cl, nil
}

// ApplyDir builds dir and applies it in stages (CRDs and namespaces first), as
// a Flux Kustomization does.
func ApplyDir(ctx context.Context, c *lab.Cluster, dir string) error {
	objs, err := Build(dir)
	if err != nil {
		return err
	}
	return Apply(ctx, c, objs)
}

// Apply server-side applies objects in Flux's stages.
func Apply(ctx context.Context, c *lab.Cluster, objs []*unstructured.Unstructured) error {
	rm, _, err := ResourceManager(c)
	if err != nil {
		return err
	}
	opts := ssa.DefaultApplyOptions()
	opts.WaitTimeout = time.Minute
	if _, err := rm.ApplyAllStaged(ctx, objs, opts); err != nil {
		return fmt.Errorf("cluster %s: applying %d objects: %w", c.Name, len(objs), err)
	}
	return nil
}
