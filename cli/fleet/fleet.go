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

// Package fleet reads and edits a fleet repository laid out for Flux, one
// folder per cluster: <fleet>/<cluster>/flux, install (the cluster's identity)
// and config (its Spillway objects). The CLI writes into config folders and
// plans by rendering them; nothing here talks to a cluster.
package fleet

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// The ConfigMap in a cluster's install folder that says who the cluster is.
// The controller reads the same keys from its environment.
const (
	IdentityConfigMapName = "spillway-cluster-identity"
	IdentityNamespace     = "liqo"
	ClusterIDKey          = "CLUSTER_ID"
	ClusterNameKey        = "CLUSTER_NAME"
)

// Fleet is a fleet directory, the one holding a folder per cluster.
type Fleet struct {
	// Dir is the fleet directory, e.g. ./clusters.
	Dir string
}

// ClusterDir is the folder of one cluster.
func (f Fleet) ClusterDir(cluster string) string { return filepath.Join(f.Dir, cluster) }

// ConfigDir is the folder Flux applies as the cluster's Spillway objects.
func (f Fleet) ConfigDir(cluster string) string { return filepath.Join(f.Dir, cluster, "config") }

// InstallDir is the folder holding the controller and the cluster's identity.
func (f Fleet) InstallDir(cluster string) string { return filepath.Join(f.Dir, cluster, "install") }

// Clusters lists, sorted, the folders that look like a cluster: those with a
// config or an install folder. Other folders (examples, docs) are skipped.
func (f Fleet) Clusters() ([]string, error) {
	entries, err := os.ReadDir(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("reading fleet directory: %w", err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if isDir(f.ConfigDir(e.Name())) || isDir(f.InstallDir(e.Name())) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Identity is who a cluster is, as its install folder declares it.
type Identity struct {
	ClusterID   string
	ClusterName string
}

// ErrNoIdentity is returned when an install folder declares no identity.
var ErrNoIdentity = errors.New("no ConfigMap " + IdentityNamespace + "/" + IdentityConfigMapName)

// Identity reads the cluster's identity ConfigMap from the plain YAML files of
// its install folder. The folder itself is not built: it usually points at
// bases outside the fleet directory, which a copy of the fleet may not have.
func (f Fleet) Identity(cluster string) (Identity, error) {
	dir := f.InstallDir(cluster)
	files, err := filepath.Glob(filepath.Join(dir, "*.y*ml"))
	if err != nil {
		return Identity{}, err
	}
	sort.Strings(files)
	for _, file := range files {
		docs, err := ReadDocuments(file)
		if err != nil {
			return Identity{}, err
		}
		for _, doc := range docs {
			var cm struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
				Data map[string]string `json:"data"`
			}
			if yaml.Unmarshal(doc, &cm) != nil || cm.Kind != "ConfigMap" || cm.Metadata.Name != IdentityConfigMapName {
				continue
			}
			id := Identity{ClusterID: cm.Data[ClusterIDKey], ClusterName: cm.Data[ClusterNameKey]}
			if id.ClusterID == "" {
				return Identity{}, fmt.Errorf("%s: ConfigMap %s has no %s", file, IdentityConfigMapName, ClusterIDKey)
			}
			if id.ClusterName == "" {
				id.ClusterName = cluster
			}
			return id, nil
		}
	}
	return Identity{}, fmt.Errorf("%s: %w", dir, ErrNoIdentity)
}

// ClusterByID returns the folder whose install identity has the given
// cluster ID.
func (f Fleet) ClusterByID(clusterID string) (string, bool) {
	clusters, err := f.Clusters()
	if err != nil {
		return "", false
	}
	for _, c := range clusters {
		if id, err := f.Identity(c); err == nil && id.ClusterID == clusterID {
			return c, true
		}
	}
	return "", false
}

// ReadDocuments splits a YAML file into its non-empty documents.
func ReadDocuments(file string) ([][]byte, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(raw)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var b bytes.Buffer
	for _, l := range bytes.Split(doc, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' && !bytes.Equal(t, []byte("---")) {
			b.Write(l)
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, fs.ErrNotExist)
}
