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
)

// What the reflector holds of each provider Event it watches is what it
// reads, for as long as the Event lives (an hour by default, past the
// pod's end). A provider Event and its copy for every offloaded pod's
// scheduling were 25 MB of rome's manager's heap at 10,000 pods, and most
// of what outlived the pods (issue 17, target 3). The copies are no longer
// cached at all (copies.go).

// remoteEventFootprint is the transform of a twin's watch of provider
// Events: what sync and LocalEvent read (the involved pod's name, the
// container's field path, reason, message, type, count and times).
func remoteEventFootprint(obj any) (any, error) {
	if e, ok := obj.(*corev1.Event); ok {
		*e = corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Namespace: e.Namespace, Name: e.Name, ResourceVersion: e.ResourceVersion},
			InvolvedObject: corev1.ObjectReference{Kind: e.InvolvedObject.Kind, Name: e.InvolvedObject.Name, FieldPath: e.InvolvedObject.FieldPath},
			Reason:         e.Reason, Message: e.Message, Type: e.Type, Count: e.Count,
			FirstTimestamp: e.FirstTimestamp, LastTimestamp: e.LastTimestamp, EventTime: e.EventTime,
		}
	}
	return obj, nil
}
