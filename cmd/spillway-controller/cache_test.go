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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/spillway-dev/spillway/peering/virtualnode"
	"github.com/spillway-dev/spillway/reflectors/event"
)

// eventFields are the fields the API server lets a selector match on an
// Event, with the values it takes them from (kube-apiserver's
// pkg/registry/core/event, ToSelectableFields).
func eventFields(e *corev1.Event) fields.Set {
	return fields.Set{
		"metadata.name":                  e.Name,
		"metadata.namespace":             e.Namespace,
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         e.Source.Component,
		"type":                           e.Type,
	}
}

func TestTheManagerCachesOnlyTheEventReflectorsCopies(t *testing.T) {
	g := NewWithT(t)
	var selector fields.Selector
	for obj, by := range managerCacheOptions(&virtualnode.PodVersions{}).ByObject {
		if _, ok := obj.(*corev1.Event); ok {
			selector = by.Field
		}
	}
	g.Expect(selector).NotTo(BeNil(), "without a selector the manager caches every Event of the cluster")

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: "uid-1"}, Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
	remote := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "apps-rome-1a2b3c", Name: "web-0.18a"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-0"}, Reason: "Scheduled", Count: 1}
	copied := event.LocalEvent(remote, pod, "milan")
	g.Expect(selector.Matches(eventFields(copied))).To(BeTrue(), "the selector the reflector lists its copies with")

	for _, own := range []*corev1.Event{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0.1"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-0"},
			Reason: "Scheduled", ReportingController: "default-scheduler", Source: corev1.EventSource{Component: "default-scheduler"}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0.2"}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "web-0"},
			Reason: "ProviderCreateSuccess", Source: corev1.EventSource{Component: "virtual-kubelet"}},
	} {
		g.Expect(selector.Matches(eventFields(own))).To(BeFalse(), "the cluster's own event %s is not cached", own.Reason)
	}

}

func TestTheManagersPodCacheSharesUnchangedVersionsAndDropsManagedFields(t *testing.T) {
	g := NewWithT(t)
	versions := &virtualnode.PodVersions{}
	var transform func(any) (any, error)
	for obj, by := range managerCacheOptions(versions).ByObject {
		if _, ok := obj.(*corev1.Pod); ok {
			transform = by.Transform
		}
	}
	g.Expect(transform).NotTo(BeNil(), "without it every offloaded pod is held twice (virtual-kubelet keeps the bound version)")

	store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
	versions.Hold(store)
	pod := func(rv string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: "uid-1", ResourceVersion: rv,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler"}}},
			Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "web", Image: "nginx"}}}}
	}
	bound, err := transform(pod("1"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(store.Add(bound)).To(Succeed())
	running, err := transform(pod("2"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(running.(*corev1.Pod).ManagedFields).To(BeNil(), "the pod transform replaces the default one, which stripped them")
	g.Expect(&running.(*corev1.Pod).Spec.Containers[0]).To(BeIdenticalTo(&bound.(*corev1.Pod).Spec.Containers[0]))
}
