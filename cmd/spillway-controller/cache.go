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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/controllers/storage"
	"github.com/spillway-dev/spillway/peering/virtualnode"
	"github.com/spillway-dev/spillway/reflectors/event"
)

// managerCacheOptions says what the manager's cache holds. Its informers
// start at a kind's first read, so a kind listed here costs nothing until a
// controller reads it. versions shares what successive versions of a local
// pod have in common (see virtualnode.PodVersions).
func managerCacheOptions(versions *virtualnode.PodVersions) cache.Options {
	return cache.Options{
		// Nothing reads managed fields from the cache; without them a cached
		// pod is markedly smaller, and the manager caches every pod.
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject: map[client.Object]cache.ByObject{
			// The only Jobs the manager reads are VolumeMoves' copy Jobs.
			&batchv1.Job{}: {Label: storage.VolumeMoveJobs},
			// Nothing reads Events through the cache: the event reflector
			// lists its copies from the API server (issue 17, lever 29).
			// The filter stays so that a read added later caches the
			// copies at most, not every Event of the cluster, the
			// scheduler's and virtual-kubelet's for each offloaded pod
			// included (issue 17, target 3).
			&corev1.Event{}: {Field: event.CopiesSelector()},
			// Its own transform replaces the default: it strips managed
			// fields too.
			&corev1.Pod{}: {Transform: versions.Transform},
		},
	}
}
