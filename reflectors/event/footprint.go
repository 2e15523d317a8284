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

package event

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// What the reflector holds of each provider Event it watches is what it
// reads, for as long as the Event lives (an hour by default, past the
// pod's end). A provider Event and its copy for every offloaded pod's
// scheduling were 25 MB of rome's manager's heap at 10,000 pods, and most
// of what outlived the pods (issue 17, target 3). The copies are no longer
// cached at all (copies.go).

// remoteEvent is what a twin's watch holds of a provider Event: what
// sync and copyFor read, the times already resolved as a copy takes them.
// A *corev1.Event trimmed to the same fields was a 640 B struct before its
// strings; this is 184 B. It is not an API object: the informer's store
// reads its key and resourceVersion through GetObjectMeta, and nothing
// else reads it.
type remoteEvent struct {
	namespace, name, resourceVersion string
	// aboutPod says the Event is about a pod, named podName; sync skips
	// the others.
	aboutPod    bool
	count       int32
	podName     string
	fieldPath   string
	reason      string
	message     string
	eventType   string
	first, last metav1.Time
}

// GetObjectMeta gives client-go's store the Event's key and
// resourceVersion (meta.Accessor).
func (e *remoteEvent) GetObjectMeta() metav1.Object {
	return &metav1.ObjectMeta{Namespace: e.namespace, Name: e.name, ResourceVersion: e.resourceVersion}
}

// GetObjectKind and DeepCopyObject make it a runtime.Object, which the
// informer's optional mutation detector asks for.
func (e *remoteEvent) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

func (e *remoteEvent) DeepCopyObject() runtime.Object {
	c := *e
	return &c
}

// footprintOf is what a copy is made of in remote.
func footprintOf(remote *corev1.Event) *remoteEvent {
	first, last := remote.FirstTimestamp, remote.LastTimestamp
	if first.IsZero() {
		first = metav1.NewTime(remote.EventTime.Time)
	}
	if last.IsZero() {
		last = first
	}
	count := remote.Count
	if count == 0 {
		count = 1
	}
	// An Event's timestamps are stored to the second, and an events.k8s.io
	// event's time is to the microsecond: untruncated, the copy read back
	// never equals the wanted one, and every resync rewrote every event
	// (make bench, 10,000 pods over 16 minutes: 2 PUTs per pod).
	return &remoteEvent{
		namespace: remote.Namespace, name: remote.Name, resourceVersion: remote.ResourceVersion,
		aboutPod: remote.InvolvedObject.Kind == "Pod", count: count,
		podName: remote.InvolvedObject.Name, fieldPath: remote.InvolvedObject.FieldPath,
		reason: remote.Reason, message: remote.Message, eventType: remote.Type,
		first: first.Rfc3339Copy(), last: last.Rfc3339Copy(),
	}
}

// remoteEventFootprint is the transform of a twin's watch of provider
// Events; anything but an Event passes unchanged.
func remoteEventFootprint(obj any) (any, error) {
	if e, ok := obj.(*corev1.Event); ok {
		return footprintOf(e), nil
	}
	return obj, nil
}

// copyFor is the consumer's copy of e, about the local pod.
func (e *remoteEvent) copyFor(pod *corev1.Pod, remoteClusterName string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: e.name},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
			FieldPath: e.fieldPath},
		Reason: e.reason, Message: e.message, Type: e.eventType, Count: e.count,
		FirstTimestamp: e.first, LastTimestamp: e.last,
		Source:              corev1.EventSource{Component: "spillway-virtual-kubelet", Host: pod.Spec.NodeName},
		ReportingController: ReportingController, ReportingInstance: remoteClusterName,
	}
}
