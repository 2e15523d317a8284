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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

func TestProviderCallSuccessesAreNotRecordedButFailuresAre(t *testing.T) {
	g := NewWithT(t)
	fake := record.NewFakeRecorder(10)
	r := withoutCallSuccesses{fake}
	pod := &corev1.Pod{}

	r.Event(pod, corev1.EventTypeNormal, "ProviderCreateSuccess", "Create pod in provider successfully")
	r.Eventf(pod, corev1.EventTypeNormal, "ProviderUpdateSuccess", "Update pod in provider successfully")
	r.AnnotatedEventf(pod, nil, corev1.EventTypeNormal, "ProviderDeleteSuccess", "Delete pod in provider successfully")
	r.Event(pod, corev1.EventTypeWarning, "ProviderCreateFailed", "connection refused")
	r.Eventf(pod, corev1.EventTypeNormal, "OffloadingBackOff", "waiting for %s", "the twin")
	r.AnnotatedEventf(pod, map[string]string{"a": "b"}, corev1.EventTypeWarning, "ProviderDeleteFailed", "timeout")

	close(fake.Events)
	var got []string
	for e := range fake.Events {
		got = append(got, e)
	}
	g.Expect(got).To(Equal([]string{
		"Warning ProviderCreateFailed connection refused",
		"Normal OffloadingBackOff waiting for the twin",
		"Warning ProviderDeleteFailed timeout map[a:b]",
	}))
}
