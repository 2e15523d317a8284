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
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/cli/fleet"
	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/cli/selector"
)

type offloadOptions struct {
	target
	mapping   string
	pods      string
	selectors []string
}

func newOffloadCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "offload",
		Short: "Offload a namespace to peer clusters",
	}
	o := &offloadOptions{}
	ns := &cobra.Command{
		Use:   "namespace NAME",
		Short: "Write the Namespace and NamespaceOffloading that extend NAME to peers",
		Long: `Writes <fleet>/<cluster>/config/offloading-NAME.yaml, a Namespace labelled
liqo.io/scheduling-enabled=true and its NamespaceOffloading "offloading", and
lists it in the folder's kustomization. Running it again updates the file.

Each --selector is one term of the clusterSelector; terms are ORed, and the
comma-separated requirements of one selector are ANDed:
  --selector 'topology.liqo.io/region=south' --selector 'tier in (edge),!legacy'`,
		Example: `  spillway offload namespace liqo-demo --cluster rome
  spillway offload namespace liqo-demo --cluster venice --namespace-mapping-strategy EnforceSameName \
    --selector 'topology.liqo.io/region=south'`,
		Args: exactArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args[0]) },
	}
	ns.Flags().StringVar(&o.mapping, "namespace-mapping-strategy", string(offloadingv1alpha1.DefaultNameMappingStrategy),
		"how the namespace is named in the peers: DefaultName or EnforceSameName (cannot change later)")
	ns.Flags().StringVar(&o.pods, "pod-offloading-strategy", string(offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy),
		"where the namespace's pods may run: LocalAndRemote, Local or Remote")
	ns.Flags().StringArrayVar(&o.selectors, "selector", nil,
		"a label selector on the peers' virtual nodes; repeat it to OR several (default: every peer)")
	o.bind(ns, "the cluster whose config folder is written (the consumer)", true)
	c.AddCommand(ns)
	return c
}

func validateNamespaceName(name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return usageErrorf("namespace %q: %s: use a lowercase DNS label such as liqo-demo", name, strings.Join(errs, "; "))
	}
	return nil
}

func (o *offloadOptions) run(c *cobra.Command, namespace string) error {
	if err := validateNamespaceName(namespace); err != nil {
		return err
	}
	mapping := offloadingv1alpha1.NamespaceMappingStrategy(o.mapping)
	switch mapping {
	case offloadingv1alpha1.DefaultNameMappingStrategy, offloadingv1alpha1.EnforceSameNameMappingStrategy:
	default:
		return usageErrorf("--namespace-mapping-strategy %q is not DefaultName or EnforceSameName: use DefaultName, or EnforceSameName to keep the name %s in the peers", o.mapping, namespace)
	}
	pods := offloadingv1alpha1.PodOffloadingStrategy(o.pods)
	switch pods {
	case offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, offloadingv1alpha1.LocalPodOffloadingStrategy, offloadingv1alpha1.RemotePodOffloadingStrategy:
	default:
		return usageErrorf("--pod-offloading-strategy %q is not LocalAndRemote, Local or Remote: use one of them", o.pods)
	}
	sel, err := selector.Parse("selector", o.selectors)
	if err != nil {
		return usageErrorf("%v", err)
	}
	if err := o.validate(false); err != nil {
		return err
	}
	off := manifests.Offloading{Namespace: namespace, MappingStrategy: mapping, PodStrategy: pods, ClusterSelector: sel, DeclareNamespace: true}
	var note string
	if o.output == "" {
		dir := o.fleetDir().ConfigDir(o.cluster)
		if err := checkMappingUnchanged(dir, namespace, mapping); err != nil {
			return err
		}
		decls, err := fleet.Declarations(dir)
		if err != nil {
			return failed(err)
		}
		for _, d := range decls {
			if d.Kind == "Namespace" && d.Name == namespace && d.File != manifests.OffloadingFile(namespace) {
				// Declared by the user: leave it there, and do not declare it twice.
				off.DeclareNamespace = false
				note = fmt.Sprintf("note: Namespace %s is declared in %s; make sure it carries the label %s: %q",
					namespace, filepath.Join(dir, d.File), offloadingv1alpha1.SchedulingEnabledLabel, offloadingv1alpha1.SchedulingEnabledValue)
			}
		}
	}
	if err := o.emit(c, off.File()); err != nil {
		return err
	}
	if note != "" {
		fmt.Fprintln(c.ErrOrStderr(), note)
	}
	return nil
}

// checkMappingUnchanged refuses to rewrite an offloading file with another
// mapping strategy: admission rejects the change once it is applied.
func checkMappingUnchanged(dir, namespace string, mapping offloadingv1alpha1.NamespaceMappingStrategy) error {
	file := filepath.Join(dir, manifests.OffloadingFile(namespace))
	docs, err := fleet.ReadDocuments(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return failed(err)
	}
	for _, doc := range docs {
		var no offloadingv1alpha1.NamespaceOffloading
		if yaml.Unmarshal(doc, &no) != nil || no.Kind != "NamespaceOffloading" {
			continue
		}
		old := no.Spec.NamespaceMappingStrategy
		if old == "" {
			old = offloadingv1alpha1.DefaultNameMappingStrategy
		}
		if old != mapping {
			return usageErrorf("--namespace-mapping-strategy %s: %s is already offloaded with %s and spec.namespaceMappingStrategy cannot change; "+
				"run spillway unoffload namespace %s, merge that, then offload it again", mapping, namespace, old, namespace)
		}
	}
	return nil
}

type unoffloadOptions struct{ target }

func newUnoffloadCommand() *cobra.Command {
	c := &cobra.Command{
		Use:   "unoffload",
		Short: "Stop offloading a namespace",
	}
	o := &unoffloadOptions{}
	ns := &cobra.Command{
		Use:   "namespace NAME",
		Short: "Remove the offloading file of NAME and its kustomization entry",
		Long: `Removes <fleet>/<cluster>/config/offloading-NAME.yaml, written by
"spillway offload namespace", and its kustomization entry. Once Flux applies
the change, the namespace is withdrawn from every peer (its remote namespaces
and their pods are deleted); the local namespace stays.`,
		Args: exactArgs("NAME"),
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args[0]) },
	}
	o.bind(ns, "the cluster whose config folder is written (the consumer)", false)
	c.AddCommand(ns)
	return c
}

func (o *unoffloadOptions) run(c *cobra.Command, namespace string) error {
	if err := validateNamespaceName(namespace); err != nil {
		return err
	}
	if err := o.validate(false); err != nil {
		return err
	}
	dir := o.fleetDir().ConfigDir(o.cluster)
	file := manifests.OffloadingFile(namespace)
	if _, err := os.Stat(filepath.Join(dir, file)); errors.Is(err, os.ErrNotExist) {
		decls, derr := fleet.Declarations(dir)
		if derr != nil {
			return failed(derr)
		}
		for _, d := range decls {
			if d.Kind == "NamespaceOffloading" && d.Namespace == namespace {
				return failed(fmt.Errorf("%s is offloaded by %s, which spillway did not write: remove its NamespaceOffloading there "+
					"(keep the Namespace, or Flux deletes it with everything in it)", namespace, filepath.Join(dir, d.File)))
			}
		}
		return failed(fmt.Errorf("%s is not offloaded in %s: nothing to do", namespace, dir))
	}
	edit, err := fleet.NewEdit(dir)
	if err != nil {
		return failed(err)
	}
	if err := edit.Remove(file); err != nil {
		return failed(err)
	}
	if _, err := edit.RemoveResource(file); err != nil {
		return failed(errorsJoin(err, edit.Rollback()))
	}
	if err := edit.Verify(); err != nil {
		return failed(err)
	}
	fmt.Fprintf(c.OutOrStdout(), "removed %s and its entry in %s\n", filepath.Join(dir, file), fleet.KustomizationFile(dir))
	return nil
}
