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

package manifests

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// FluxPruneAnnotation, set to FluxPruneDisabled, makes Flux leave an object in
// the cluster when it disappears from git.
const (
	FluxPruneAnnotation = "kustomize.toolkit.fluxcd.io/prune"
	FluxPruneDisabled   = "disabled"
)

// Offloading is what `spillway offload namespace` writes.
type Offloading struct {
	Namespace       string
	MappingStrategy offloadingv1alpha1.NamespaceMappingStrategy
	PodStrategy     offloadingv1alpha1.PodOffloadingStrategy
	ClusterSelector *corev1.NodeSelector
	// DeclareNamespace writes the Namespace too; false when another file of
	// the folder already declares it.
	DeclareNamespace bool
}

// OffloadingFile is the file offload writes and unoffload removes.
func OffloadingFile(namespace string) string { return "offloading-" + namespace + ".yaml" }

// NamespaceOffloading is the object that extends the namespace to peers.
func (o Offloading) NamespaceOffloading() *offloadingv1alpha1.NamespaceOffloading {
	return &offloadingv1alpha1.NamespaceOffloading{
		TypeMeta:   metav1.TypeMeta{APIVersion: offloadingv1alpha1.GroupVersion.String(), Kind: "NamespaceOffloading"},
		ObjectMeta: metav1.ObjectMeta{Name: offloadingv1alpha1.RequiredName, Namespace: o.Namespace},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{
			NamespaceMappingStrategy: o.MappingStrategy,
			PodOffloadingStrategy:    o.PodStrategy,
			ClusterSelector:          o.ClusterSelector,
		},
	}
}

// File is the offloading file: the labelled Namespace and its
// NamespaceOffloading.
func (o Offloading) File() File {
	f := File{Name: OffloadingFile(o.Namespace)}
	if o.DeclareNamespace {
		f.Documents = append(f.Documents, Document{
			Comment: fmt.Sprintf(`Written by "spillway offload namespace %s"; "spillway unoffload namespace %s"
removes this file. The label turns the Spillway webhook on for the namespace
as soon as it is applied. Flux keeps the namespace, and what runs in it, when
the file is removed: unoffloading only withdraws it from the peers.`, o.Namespace, o.Namespace),
			Object: &corev1.Namespace{
				TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
				ObjectMeta: metav1.ObjectMeta{
					Name:        o.Namespace,
					Labels:      map[string]string{offloadingv1alpha1.SchedulingEnabledLabel: offloadingv1alpha1.SchedulingEnabledValue},
					Annotations: map[string]string{FluxPruneAnnotation: FluxPruneDisabled},
				},
			},
		})
	}
	f.Documents = append(f.Documents, Document{Comment: o.comment(), Object: o.NamespaceOffloading()})
	return f
}

func (o Offloading) comment() string {
	peers := "every peer"
	if o.ClusterSelector != nil && len(o.ClusterSelector.NodeSelectorTerms) > 0 {
		peers = "the peers whose virtual node matches clusterSelector"
	}
	pods := map[offloadingv1alpha1.PodOffloadingStrategy]string{
		offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy: "on local or virtual nodes",
		offloadingv1alpha1.LocalPodOffloadingStrategy:          "on local nodes only",
		offloadingv1alpha1.RemotePodOffloadingStrategy:         "on virtual nodes only",
	}[o.PodStrategy]
	return fmt.Sprintf(`Extends %s to %s;
its pods run %s. spec.namespaceMappingStrategy cannot change
once applied: unoffload, then offload again.`, o.Namespace, peers, pods)
}
