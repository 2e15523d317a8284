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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
)

// The reasons of virtual-kubelet's events that only say a call to the
// provider returned without error (node/pod.go in virtual-kubelet).
var providerCallSucceeded = map[string]bool{
	"ProviderCreateSuccess": true,
	"ProviderUpdateSuccess": true,
	"ProviderDeleteSuccess": true,
}

// withoutCallSuccesses leaves out virtual-kubelet's Normal events that a
// call to the provider succeeded. Each is an API write on the consumer per
// pod (issue 17 counted one ProviderCreateSuccess per offloaded pod, half the
// consumer's event writes) and says less than what the consumer already
// sees: the pod's status, read from the provider's pod, and the provider's
// own events about it, which the event reflector copies. Warnings (a call
// that failed) are kept.
type withoutCallSuccesses struct{ record.EventRecorder }

func routine(eventtype, reason string) bool {
	return eventtype == corev1.EventTypeNormal && providerCallSucceeded[reason]
}

func (r withoutCallSuccesses) Event(obj runtime.Object, eventtype, reason, message string) {
	if !routine(eventtype, reason) {
		r.EventRecorder.Event(obj, eventtype, reason, message)
	}
}

func (r withoutCallSuccesses) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	if !routine(eventtype, reason) {
		r.EventRecorder.Eventf(obj, eventtype, reason, messageFmt, args...)
	}
}

func (r withoutCallSuccesses) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventtype, reason, messageFmt string, args ...any) {
	if !routine(eventtype, reason) {
		r.EventRecorder.AnnotatedEventf(obj, annotations, eventtype, reason, messageFmt, args...)
	}
}
