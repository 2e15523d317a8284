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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// providerEvent is a provider's event about a pod with every field an API
// server fills in.
func providerEvent() *corev1.Event {
	at := metav1.NewTime(time.Date(2026, 11, 28, 19, 0, 0, 0, time.UTC))
	return &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps-rome-1a2b3c", Name: "web-0.18a", UID: "ev-uid", ResourceVersion: "42",
			Labels: map[string]string{"a": "b"}, ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler"}}},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "apps-rome-1a2b3c", Name: "web-0", UID: "milan-pod-uid",
			ResourceVersion: "7", FieldPath: "spec.containers{web}"},
		Reason: "BackOff", Message: "Back-off pulling image", Type: corev1.EventTypeWarning, Count: 3,
		FirstTimestamp: at, LastTimestamp: at, EventTime: metav1.NewMicroTime(at.Time),
		Source:              corev1.EventSource{Component: "kubelet", Host: "milan-worker-1"},
		ReportingController: "kubelet", ReportingInstance: "milan-worker-1",
	}
}

func localPod() *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: "rome-pod-uid"}, Spec: corev1.PodSpec{NodeName: "liqo-milan"}}
}

func TestTheWatchOfProviderEventsKeepsWhatACopyIsMadeOf(t *testing.T) {
	g := NewWithT(t)
	full := providerEvent()
	kept, err := remoteEventFootprint(full.DeepCopy())
	g.Expect(err).NotTo(HaveOccurred())
	trimmed := kept.(*corev1.Event)
	g.Expect(LocalEvent(trimmed, localPod(), "milan")).To(Equal(LocalEvent(full, localPod(), "milan")))
	g.Expect(trimmed.InvolvedObject.Kind).To(Equal("Pod"), "sync skips events about anything else")
	g.Expect(trimmed.ResourceVersion).To(Equal("42"))
	g.Expect(trimmed.Labels).To(BeNil())
	g.Expect(trimmed.ManagedFields).To(BeNil())
	g.Expect(trimmed.Source).To(BeZero())
	g.Expect(trimmed.InvolvedObject.UID).To(BeEmpty(), "the provider's pod UID: the copy names the local pod's")
}
