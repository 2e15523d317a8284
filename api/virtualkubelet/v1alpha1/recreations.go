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

package v1alpha1

// RecreationsAnnotation is the annotation that, on a pod the provider made
// from a ShadowPod, counts how many times the provider recreated that pod
// after it vanished (an eviction, a drain). The consumer adds it to the containers' restartCount, so
// `kubectl get pods` on the consumer shows a restart where the provider
// replaced the pod. It is Spillway's: Liqo has no such contract.
const RecreationsAnnotation = "spillway.liqo.io/recreations"
