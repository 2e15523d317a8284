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
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/spillway-dev/spillway/cli/fleet"
	"github.com/spillway-dev/spillway/cli/manifests"
)

// target is where a command's manifests go: a cluster's config folder of the
// fleet, or standard output with --output.
type target struct {
	cluster string
	fleet   string
	output  string
}

// bind adds --cluster, --fleet and, when printing makes sense, --output.
func (t *target) bind(c *cobra.Command, clusterHelp string, output bool) {
	c.Flags().StringVar(&t.cluster, "cluster", "", clusterHelp)
	c.Flags().StringVar(&t.fleet, "fleet", defaultFleet, "the fleet directory, holding one folder per cluster")
	if output {
		c.Flags().StringVarP(&t.output, "output", "o", "", "print the manifests as yaml or json instead of writing them")
	}
}

func (t *target) fleetDir() fleet.Fleet { return fleet.Fleet{Dir: t.fleet} }

// validate checks the flags; a cluster is always needed to write, and also
// to print when the manifests name it (needCluster).
func (t *target) validate(needCluster bool) error {
	switch t.output {
	case "", "yaml", "json":
	default:
		return usageErrorf("--output %q is not yaml or json: use one of them, or leave it out to write into the fleet", t.output)
	}
	if t.cluster == "" {
		if t.output == "" {
			return usageErrorf("--cluster is required: it picks the folder %s to write (or pass --output yaml to print instead)",
				filepath.Join(t.fleet, "<cluster>", "config"))
		}
		if needCluster {
			return usageErrorf("--cluster is required: the manifests name the cluster they are written for")
		}
		return nil
	}
	if t.output != "" {
		return nil
	}
	if st, err := os.Stat(t.fleetDir().ClusterDir(t.cluster)); err != nil || !st.IsDir() {
		known, _ := t.fleetDir().Clusters()
		return usageErrorf("--cluster %s: there is no folder %s; pick one of [%s] or check --fleet",
			t.cluster, t.fleetDir().ClusterDir(t.cluster), strings.Join(known, " "))
	}
	return nil
}

// emit prints the files with --output, or writes them into the config
// folder, lists them in its kustomization and checks that it still builds.
func (t *target) emit(c *cobra.Command, files ...manifests.File) error {
	if t.output != "" {
		out, err := manifests.Print(t.output, files...)
		if err != nil {
			return failed(err)
		}
		_, err = c.OutOrStdout().Write(out)
		return err
	}
	dir := t.fleetDir().ConfigDir(t.cluster)
	if err := checkConflicts(dir, files); err != nil {
		return failed(err)
	}
	edit, err := fleet.NewEdit(dir)
	if err != nil {
		return failed(err)
	}
	for _, f := range files {
		data, err := f.YAML()
		if err != nil {
			return failed(err)
		}
		if err := edit.Write(f.Name, data); err != nil {
			return failed(errorsJoin(err, edit.Rollback()))
		}
		if _, err := edit.AddResource(f.Name); err != nil {
			return failed(errorsJoin(err, edit.Rollback()))
		}
		fmt.Fprintf(c.OutOrStdout(), "wrote %s\n", filepath.Join(dir, f.Name))
	}
	if err := edit.Verify(); err != nil {
		return failed(err)
	}
	fmt.Fprintf(c.OutOrStdout(), "listed in %s; commit, open a pull request, and run spillway plan to see what it will do\n", fleet.KustomizationFile(dir))
	return nil
}

// checkConflicts refuses to write an object that another file of the folder
// already declares: kustomize would fail on the duplicate.
func checkConflicts(dir string, files []manifests.File) error {
	decls, err := fleet.Declarations(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		for _, d := range f.Documents {
			acc, err := meta.Accessor(d.Object)
			if err != nil {
				return err
			}
			kind := d.Object.GetObjectKind().GroupVersionKind().Kind
			for _, decl := range decls {
				if decl.File != f.Name && decl.Kind == kind && decl.Name == acc.GetName() && decl.Namespace == acc.GetNamespace() {
					return fmt.Errorf("%s %s is already declared in %s: edit it there, or remove it from there and run this command again",
						kind, objectName(acc.GetNamespace(), acc.GetName()), filepath.Join(dir, decl.File))
				}
			}
		}
	}
	return nil
}

func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func errorsJoin(err, rollback error) error {
	if rollback != nil {
		return fmt.Errorf("%w (and restoring the folder failed: %w)", err, rollback)
	}
	return err
}
