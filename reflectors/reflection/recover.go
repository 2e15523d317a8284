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

package reflection

import (
	"errors"
	"fmt"
	"runtime/debug"

	ctrl "sigs.k8s.io/controller-runtime"
)

// ErrPanicked marks an attempt that panicked. The panic is contained to the
// one object being reflected: the worker goes on with the next one, and the
// manager, with every other virtual node, stays up.
var ErrPanicked = errors.New("reflection panicked")

// Recovering runs one reflection attempt and turns a panic into an error
// wrapping ErrPanicked, logged with its stack and counted both in the error
// counter and in spillway_reflection_panics_total.
func Recovering(resource, remoteClusterID, object string, attempt func() error) (err error) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		errorCounter.WithLabelValues(resource, remoteClusterID).Inc()
		panicCounter.WithLabelValues(resource, remoteClusterID).Inc()
		err = fmt.Errorf("%w: %s %s: %v", ErrPanicked, resource, object, p)
		ctrl.Log.WithName("reflection").Error(err, "recovered a panic; this object is skipped until the next resync",
			"resource", resource, "object", object, "remoteClusterID", remoteClusterID, "stack", string(debug.Stack()))
	}()
	return attempt()
}
