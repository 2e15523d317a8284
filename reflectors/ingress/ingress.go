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

// Package ingress reflects Ingresses into twin namespaces with the ingress
// class left empty: the consumer's class may not exist on the provider, whose
// default class then serves the copy. An Ingress the provider's twin webhook
// would refuse (policies.TwinIngressProblem: configuration snippets,
// annotations pointing outside its namespace) is not reflected, and logged.
package ingress

import (
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

var log = ctrl.Log.WithName("reflection").WithValues("resource", "ingress")

// Kind is the Ingress reflector.
var Kind = reflection.Kind{
	Name:      "ingress",
	New:       func() client.Object { return &networkingv1.Ingress{} },
	NewList:   func() client.ObjectList { return &networkingv1.IngressList{} },
	Translate: Translate,
	Merge:     Merge,
}

// Translate copies the spec without its ingress class.
func Translate(o client.Object, remoteNamespace string, peer *reflection.Peer) client.Object {
	local := o.(*networkingv1.Ingress)
	if problem := policies.TwinIngressProblem(local); problem != "" {
		log.Info("not reflecting an Ingress the provider would refuse", "peer", peer.RemoteClusterName, "reason", problem)
		return nil
	}
	spec := *local.Spec.DeepCopy()
	spec.IngressClassName = nil
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: local.Name, Namespace: remoteNamespace,
			Labels: reflection.CopyLabels(local, peer), Annotations: reflection.CopyAnnotations(local)},
		Spec: spec,
	}
}

// Merge realigns the copy's metadata and spec; its status is the provider's.
func Merge(d, e client.Object) bool {
	desired, existing := d.(*networkingv1.Ingress), e.(*networkingv1.Ingress)
	changed := reflection.MergeMeta(desired, existing)
	if !equality.Semantic.DeepEqual(desired.Spec, existing.Spec) {
		existing.Spec = desired.Spec
		changed = true
	}
	return changed
}
