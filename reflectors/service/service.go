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

// Package service reflects Services into twin namespaces. The addresses and
// ports a cluster allocates (clusterIP, loadBalancerIP, node ports) are left
// for the provider to allocate, since the consumer's would likely clash
// there; DNS names stay the same, so pods find the Service either way. The
// annotation liqo.io/force-remote-node-port=true keeps the node ports.
//
// What the provider's twin webhook refuses is not sent (policies.
// TwinServiceProblem): externalIPs are dropped from the copy, and an
// ExternalName Service naming a host inside the cluster is not reflected;
// both are logged, so the Service's owner learns why.
package service

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/reflection"
)

var log = ctrl.Log.WithName("reflection").WithValues("resource", "service")

// Kind is the Service reflector.
var Kind = reflection.Kind{
	Name:      "service",
	New:       func() client.Object { return &corev1.Service{} },
	NewList:   func() client.ObjectList { return &corev1.ServiceList{} },
	Translate: Translate,
	Merge:     Merge,
}

// Translate copies the spec less what the provider allocates. The selector
// stays: the provider's own EndpointSlice controller then lists the pods
// offloaded there, and the endpointslice reflector adds the others.
func Translate(o client.Object, remoteNamespace string, peer *reflection.Peer) client.Object {
	local := o.(*corev1.Service)
	spec := *local.Spec.DeepCopy()
	if len(spec.ExternalIPs) > 0 {
		log.Info("reflecting a Service without its spec.externalIPs: providers refuse them in twins", "service", client.ObjectKeyFromObject(local).String(),
			"externalIPs", spec.ExternalIPs, "peer", peer.RemoteClusterName)
		spec.ExternalIPs = nil
		if spec.Type == "" || spec.Type == corev1.ServiceTypeClusterIP {
			// Defaulted because of the externalIPs; a ClusterIP Service
			// without them may not carry it.
			spec.ExternalTrafficPolicy = ""
		}
	}
	if problem := policies.TwinServiceProblem(&corev1.Service{ObjectMeta: local.ObjectMeta, Spec: spec}); problem != "" {
		log.Info("not reflecting a Service the provider would refuse", "peer", peer.RemoteClusterName, "reason", problem)
		return nil
	}
	if spec.ClusterIP != corev1.ClusterIPNone {
		spec.ClusterIP, spec.ClusterIPs = "", nil
	} else {
		spec.ClusterIPs = nil
	}
	spec.IPFamilies = nil
	spec.LoadBalancerIP = ""
	spec.HealthCheckNodePort = 0
	if local.Annotations[virtualkubeletv1alpha1.ForceRemoteNodePortAnnotation] != "true" {
		for i := range spec.Ports {
			spec.Ports[i].NodePort = 0
		}
	}
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: local.Name, Namespace: remoteNamespace,
			Labels: reflection.CopyLabels(local, peer), Annotations: reflection.CopyAnnotations(local)},
		Spec: spec,
	}
}

// Merge realigns the copy's metadata and spec, keeping what the provider
// allocated where the consumer leaves it open.
func Merge(d, e client.Object) bool {
	desired, existing := d.(*corev1.Service), e.(*corev1.Service)
	changed := reflection.MergeMeta(desired, existing)
	want := *desired.Spec.DeepCopy()
	keepAllocated(&want, &existing.Spec)
	if !equality.Semantic.DeepEqual(want, existing.Spec) {
		existing.Spec = want
		changed = true
	}
	return changed
}

// keepAllocated copies into want the fields the provider filled in that want
// leaves empty.
func keepAllocated(want, got *corev1.ServiceSpec) {
	if want.ClusterIP == "" {
		want.ClusterIP = got.ClusterIP
	}
	if len(want.ClusterIPs) == 0 {
		want.ClusterIPs = got.ClusterIPs
	}
	if len(want.IPFamilies) == 0 {
		want.IPFamilies = got.IPFamilies
	}
	if want.IPFamilyPolicy == nil {
		want.IPFamilyPolicy = got.IPFamilyPolicy
	}
	if want.InternalTrafficPolicy == nil {
		want.InternalTrafficPolicy = got.InternalTrafficPolicy
	}
	if want.HealthCheckNodePort == 0 {
		want.HealthCheckNodePort = got.HealthCheckNodePort
	}
	for i := range want.Ports {
		if want.Ports[i].NodePort != 0 {
			continue
		}
		for _, p := range got.Ports {
			if p.Port == want.Ports[i].Port && p.Protocol == want.Ports[i].Protocol {
				want.Ports[i].NodePort = p.NodePort
			}
		}
	}
}
