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

// Package reflectbench measures reflection latency: how long a change to a
// local object takes to reach its copy on the provider, against how long the
// same change takes to reach a watcher of the local API server ("vanilla",
// the floor any controller works on), for ConfigMaps and EndpointSlices, in
// one run on one lab. It is run by `make bench`, never in CI.
package reflectbench

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// RevisionAnnotation carries the revision a watcher waits for; reflection
// copies annotations, so the copy shows it when it is up to date.
const RevisionAnnotation = "bench.spillway.liqo.io/revision"

// Kind is one reflected resource under test.
type Kind struct {
	Name     string
	Resource schema.GroupVersionResource
	// Object builds object i of a batch.
	Object func(namespace string, i int) *unstructured.Unstructured
}

// Kinds are the resources the issue asks for.
var Kinds = []Kind{
	{Name: "configmap", Resource: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Object: configMap},
	{Name: "endpointslice", Resource: schema.GroupVersionResource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"}, Object: endpointSlice},
}

func name(i int) string { return fmt.Sprintf("bench-%05d", i) }

func configMap(namespace string, i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name(i), "namespace": namespace, "annotations": map[string]any{RevisionAnnotation: "0"}},
		"data":     map[string]any{"key": "value"},
	}}
}

// endpointSlice is a slice of a (selector-less) Service's endpoint in
// rome's pod network, managed by the benchmark so that no controller of
// rome's rewrites it.
func endpointSlice(namespace string, i int) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
		"metadata": map[string]any{"name": name(i), "namespace": namespace,
			"annotations": map[string]any{RevisionAnnotation: "0"},
			"labels":      map[string]any{"kubernetes.io/service-name": name(i), "endpointslice.kubernetes.io/managed-by": "bench.spillway.liqo.io"}},
		"addressType": "IPv4",
		"endpoints": []any{map[string]any{"addresses": []any{fmt.Sprintf("10.64.%d.%d", i/250, 1+i%250)},
			"conditions": map[string]any{"ready": true}}},
		"ports": []any{map[string]any{"name": "http", "port": int64(80), "protocol": "TCP"}},
	}}
}
