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

package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/cli/fleet"
)

// Snapshot is one side of a plan: every cluster of a fleet directory with
// its identity and its rendered config folder.
type Snapshot struct {
	Fleet    fleet.Fleet
	Clusters map[string]*Cluster
}

// Cluster is what one cluster's folders declare.
type Cluster struct {
	Name string
	// Identity is empty when IdentityErr is set.
	Identity    fleet.Identity
	IdentityErr error
	// BuildErr is set when the config folder does not build.
	BuildErr error

	ForeignClusters map[string]*discoveryv1alpha1.ForeignCluster // by name
	// Offloadings holds every NamespaceOffloading, by namespace then name.
	Offloadings map[string]map[string]*offloadingv1alpha1.NamespaceOffloading
	Offers      map[string]*sharingv1alpha1.ResourceOffer // by namespace/name
	Namespaces  map[string]*corev1.Namespace
	// Undecodable lists objects of Spillway's kinds whose fields do not fit
	// the API types (e.g. a malformed quantity), by kind/namespace/name.
	Undecodable map[string]error
}

// Load reads every cluster of a fleet directory.
func Load(dir string) (*Snapshot, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	f := fleet.Fleet{Dir: dir}
	names, err := f.Clusters()
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Fleet: f, Clusters: map[string]*Cluster{}}
	for _, name := range names {
		s.Clusters[name] = loadCluster(f, name)
	}
	return s, nil
}

func loadCluster(f fleet.Fleet, name string) *Cluster {
	c := &Cluster{
		Name:            name,
		ForeignClusters: map[string]*discoveryv1alpha1.ForeignCluster{},
		Offloadings:     map[string]map[string]*offloadingv1alpha1.NamespaceOffloading{},
		Offers:          map[string]*sharingv1alpha1.ResourceOffer{},
		Namespaces:      map[string]*corev1.Namespace{},
		Undecodable:     map[string]error{},
	}
	c.Identity, c.IdentityErr = f.Identity(name)
	dir := f.ConfigDir(name)
	if _, err := os.Stat(fleet.KustomizationFile(dir)); errors.Is(err, os.ErrNotExist) {
		return c // no config folder: nothing declared
	}
	objs, err := fleet.Build(dir)
	if err != nil {
		c.BuildErr = fmt.Errorf("%s/config does not build: %s", name, withinFleet(f, unwrapped(err)))
		return c
	}
	for _, u := range objs {
		c.add(u)
	}
	return c
}

// withinFleet writes the paths in an error relative to the fleet directory,
// so messages do not show where a git ref was extracted.
func withinFleet(f fleet.Fleet, err error) string {
	msg := err.Error()
	if abs, aerr := filepath.Abs(f.Dir); aerr == nil {
		msg = strings.ReplaceAll(msg, abs+string(filepath.Separator), "")
	}
	return strings.ReplaceAll(msg, filepath.Clean(f.Dir)+string(filepath.Separator), "")
}

func unwrapped(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

func (c *Cluster) add(u *unstructured.Unstructured) {
	gk := u.GroupVersionKind().GroupKind()
	key := gk.Kind + " " + filepath.Join(u.GetNamespace(), u.GetName())
	decode := func(out any) bool {
		data, err := json.Marshal(u.Object)
		if err == nil {
			err = json.Unmarshal(data, out)
		}
		if err != nil {
			c.Undecodable[key] = err
			return false
		}
		return true
	}
	switch {
	case gk.Group == discoveryv1alpha1.GroupVersion.Group && gk.Kind == "ForeignCluster":
		fc := &discoveryv1alpha1.ForeignCluster{}
		if decode(fc) {
			c.ForeignClusters[fc.Name] = fc
		}
	case gk.Group == offloadingv1alpha1.GroupVersion.Group && gk.Kind == "NamespaceOffloading":
		no := &offloadingv1alpha1.NamespaceOffloading{}
		if decode(no) {
			if c.Offloadings[no.Namespace] == nil {
				c.Offloadings[no.Namespace] = map[string]*offloadingv1alpha1.NamespaceOffloading{}
			}
			c.Offloadings[no.Namespace][no.Name] = no
		}
	case gk.Group == sharingv1alpha1.GroupVersion.Group && gk.Kind == "ResourceOffer":
		ro := &sharingv1alpha1.ResourceOffer{}
		if decode(ro) {
			c.Offers[ro.Namespace+"/"+ro.Name] = ro
		}
	case gk.Group == "" && gk.Kind == "Namespace":
		ns := &corev1.Namespace{}
		if decode(ns) {
			c.Namespaces[ns.Name] = ns
		}
	}
}

// Offloading returns the namespace's NamespaceOffloading, the one named
// "offloading"; others are rejected by admission and never take effect.
func (c *Cluster) Offloading(namespace string) *offloadingv1alpha1.NamespaceOffloading {
	if c == nil {
		return nil
	}
	return c.Offloadings[namespace][offloadingv1alpha1.RequiredName]
}

// displayName is how the cluster is called in messages.
func (c *Cluster) displayName() string {
	if c.Identity.ClusterName != "" {
		return c.Identity.ClusterName
	}
	return c.Name
}
