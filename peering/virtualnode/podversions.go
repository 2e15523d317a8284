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

package virtualnode

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// PodVersions is a transform for the manager's informer of local pods (the
// one the virtual nodes share, see Options.LocalPods): a new version of a pod
// takes the spec, labels, annotations, finalizers and owner references of
// the version the informer holds when they are unchanged, instead of decoded
// copies of its own.
//
// Why: virtual-kubelet (v1.13.0, node/podcontroller.go, knownPod.lastPodUsed)
// keeps, for every pod it runs, the informer's object it last handed to
// CreatePod or UpdatePod: the pod as it was bound, Pending. The informer has
// replaced that object since (the pod's status changed), so each offloaded
// pod was held decoded twice, whole, for its whole life (issue 17, target 3).
// Sharing what did not change leaves the retained version only its own
// metadata and its short status.
//
// The shared parts are read-only like every cached object: nothing may
// modify an informer's object (virtual-kubelet and the pod handler copy
// before they write). Managed fields are dropped, as the manager's default
// transform does for every kind.
//
// A pod's first version, and one whose spec changed, shares instead the
// parts many pods carry identically (podParts): the affinity and
// tolerations of every offloaded pod, most pods' empty security context.
type PodVersions struct {
	held  atomic.Pointer[toolscache.Store]
	parts podParts
}

// Hold names the informer's store, where the transform finds the version
// held. Until it is called, versions share only the parts many pods carry
// alike, and are stripped of managed fields.
func (v *PodVersions) Hold(store toolscache.Store) { v.held.Store(&store) }

// Transform is the informer's transform (cache.ByObject.Transform). client-go
// calls it once per new object, before the object reaches the store; never
// for a resync, which re-delivers the stored object.
func (v *PodVersions) Transform(obj any) (any, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	pod.ManagedFields = nil
	if prev := v.heldVersion(pod); prev == nil || !shareUnchanged(prev, pod) {
		v.parts.share(&pod.Spec)
	}
	return pod, nil
}

// heldVersion is the version of pod the informer's store holds, nil before
// Hold or when it holds none.
func (v *PodVersions) heldVersion(pod *corev1.Pod) *corev1.Pod {
	store := v.held.Load()
	if store == nil {
		return nil
	}
	key, err := toolscache.MetaNamespaceKeyFunc(pod)
	if err != nil {
		return nil
	}
	held, found, err := (*store).GetByKey(key)
	if err != nil || !found {
		return nil
	}
	prev, _ := held.(*corev1.Pod)
	return prev
}

// shareUnchanged points next's spec, labels and annotations at prev's where
// they are equal: same pod (UID), same content. next must not yet be visible
// to any reader; prev is never written. It reports whether next took prev's
// spec.
func shareUnchanged(prev, next *corev1.Pod) bool {
	if prev == next || prev.UID != next.UID {
		return false
	}
	specShared := sameSpec(prev, next)
	if specShared {
		next.Spec = prev.Spec
	}
	if maps.Equal(prev.Labels, next.Labels) {
		next.Labels = prev.Labels
	}
	if maps.Equal(prev.Annotations, next.Annotations) {
		next.Annotations = prev.Annotations
	}
	if slices.Equal(prev.Finalizers, next.Finalizers) {
		next.Finalizers = prev.Finalizers
	}
	if reflect.DeepEqual(prev.OwnerReferences, next.OwnerReferences) {
		next.OwnerReferences = prev.OwnerReferences
	}
	return specShared
}

// sameSpec reports whether two versions of a pod have the same spec, byte for
// byte in their protobuf encoding (which orders map keys), so that equal
// means identical and not merely equivalent. A different generation settles
// it without encoding: the API server counts every change to a pod's spec
// but its binding (Kubernetes 1.35 on); an older one that leaves generation
// at zero is always compared.
func sameSpec(prev, next *corev1.Pod) bool {
	if prev.Generation != next.Generation || prev.Spec.NodeName != next.Spec.NodeName {
		return false
	}
	a, err := prev.Spec.Marshal()
	if err != nil {
		return false
	}
	b, err := next.Spec.Marshal()
	return err == nil && bytes.Equal(a, b)
}
