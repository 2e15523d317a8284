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

// Package policies holds Spillway's pure decisions: which clusters a namespace
// is offloaded to, where a pod may be scheduled, what a provider offers. The
// webhooks, the controllers and the CLI's plan call the same functions, so a
// pull request's plan shows exactly what the cluster will do.
package policies
