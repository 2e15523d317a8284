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

package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// appliedLayers are the Kustomizations that apply the fleet's objects: every
// one but flux-system, which applies the Kustomizations themselves.
var appliedLayers = []string{"spillway-crds", "fleet-secrets", "spillway-install", "spillway-config"}

// checkDrift shows that once the controllers ran, git and the clusters agree:
// a forced reconcile of every layer (as `flux reconcile kustomization`)
// applies nothing (kustomize-controller's apply log says unchanged for every
// object), and `flux diff kustomization` of each layer prints no change.
func (d *demo) checkDrift(ctx context.Context) error {
	return d.both(ctx, func(ctx context.Context, c *lab.Cluster) error {
		cl, err := framework.Client(c)
		if err != nil {
			return err
		}
		offset := framework.LogOffset(c, framework.KustomizeControllerProcess)
		for _, name := range appliedLayers {
			token, err := framework.RequestReconcile(ctx, cl, framework.KustomizationGVK, name)
			if err != nil {
				return err
			}
			if err := framework.Poll(ctx, func(ctx context.Context) error {
				if err := framework.Handled(ctx, cl, framework.KustomizationGVK, name, token); err != nil {
					return err
				}
				return framework.KustomizationReady(ctx, cl, name, "")
			}); err != nil {
				return err
			}
		}
		var report []string
		for _, name := range appliedLayers {
			outputs, err := framework.ApplyOutputs(c, name, offset)
			if err != nil {
				return err
			}
			if len(outputs) == 0 {
				return fmt.Errorf("%s: kustomize-controller logged no apply of %s after the forced reconcile", c.Name, name)
			}
			actions := map[string]int{}
			for obj, action := range outputs[len(outputs)-1] {
				actions[action]++
				if action != "unchanged" {
					report = append(report, fmt.Sprintf("    %-6s %s: %s %s", c.Name, name, obj, action))
				}
			}
			objects, err := d.diffObjects(ctx, c, cl, name)
			if err != nil {
				return err
			}
			report = append(report, fmt.Sprintf("    %-6s %-16s forced reconcile: %s; flux diff: %d objects differ", c.Name, name, countActions(actions), objects))
		}
		fmt.Println(strings.Join(report, "\n"))
		return nil
	})
}

// diffObjects runs `flux diff kustomization NAME --path` on the fleet's clone
// and counts the objects that differ: flux prints one "► KIND/NS/NAME drifted" (or
// created, deleted) per object that differs, and prints the diff too.
func (d *demo) diffObjects(ctx context.Context, c *lab.Cluster, cl client.Client, name string) (int, error) {
	ks, err := framework.Kustomization(ctx, cl, name)
	if err != nil {
		return 0, err
	}
	path, _, _ := unstructured.NestedString(ks.Object, "spec", "path")
	out, err := framework.FluxCLI(ctx, d.tools, c, "diff", "kustomization", name, "--progress-bar=false", "--path", filepath.Join(d.repo.Dir(), path))
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		fmt.Printf("    %s: flux diff kustomization %s:\n%s", c.Name, name, out)
	case err != nil:
		return 0, fmt.Errorf("%s: flux diff kustomization %s: %w\n%s", c.Name, name, err, out)
	}
	objects := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "►") {
			objects++
		}
	}
	return objects, nil
}

// countActions prints an apply's actions as "17 unchanged, 1 configured".
func countActions(actions map[string]int) string {
	var parts []string
	for action, n := range actions {
		parts = append(parts, fmt.Sprintf("%d %s", n, action))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
