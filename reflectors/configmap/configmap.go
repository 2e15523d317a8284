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

// Package configmap reflects ConfigMaps verbatim into twin namespaces, except
// the API server's own kube-root-ca.crt, which every namespace of the provider
// already has with the provider's CA.
package configmap

import (
	"maps"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// RootCAName is the ConfigMap kube-controller-manager publishes in every
// namespace; the provider's must not be overwritten by the consumer's.
const RootCAName = "kube-root-ca.crt"

// Kind is the ConfigMap reflector.
var Kind = reflection.Kind{
	Name:      "configmap",
	New:       func() client.Object { return &corev1.ConfigMap{} },
	NewList:   func() client.ObjectList { return &corev1.ConfigMapList{} },
	Translate: Translate,
	Merge:     Merge,
}

// Translate copies data, binary data and immutability.
func Translate(o client.Object, remoteNamespace string, peer *reflection.Peer) client.Object {
	local := o.(*corev1.ConfigMap)
	if local.Name == RootCAName {
		return nil
	}
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: local.Name, Namespace: remoteNamespace,
			Labels: reflection.CopyLabels(local, peer), Annotations: reflection.CopyAnnotations(local)},
		Data: maps.Clone(local.Data), BinaryData: maps.Clone(local.BinaryData), Immutable: local.Immutable,
	}
}

// Merge realigns the copy's metadata and contents.
func Merge(d, e client.Object) bool {
	desired, existing := d.(*corev1.ConfigMap), e.(*corev1.ConfigMap)
	changed := reflection.MergeMeta(desired, existing)
	if !equality.Semantic.DeepEqual(desired.Data, existing.Data) || !equality.Semantic.DeepEqual(desired.BinaryData, existing.BinaryData) ||
		!equality.Semantic.DeepEqual(desired.Immutable, existing.Immutable) {
		existing.Data, existing.BinaryData, existing.Immutable = desired.Data, desired.BinaryData, desired.Immutable
		changed = true
	}
	return changed
}
