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
	"fmt"
	"strconv"
)

// envContainerMemoryLimit is the container's memory limit in bytes, which
// the Deployment hands over by resourceFieldRef (kustomize/manager).
const envContainerMemoryLimit = "SPILLWAY_MEMORY_LIMIT"

// minMemoryReserve is kept out of the collector's limit at the least: the
// binary's own pages and what else the runtime does not count are in the
// container's memory but not in GOMEMLIMIT's. The manager sat about 37 MiB
// above a 200 MiB GOMEMLIMIT at 10,000 pods (docs/performance.md, target 3).
const minMemoryReserve = 64 << 20

// collectorMemoryLimit is the soft limit for the Go collector, derived from
// the container's memory limit so the collector works harder before the
// kernel kills the manager. Without a limit the collector lets the heap grow
// to twice what it keeps, and the kernel, not the collector, meets the
// container's limit. Setting GOMEMLIMIT to the whole container limit (as is
// common) would leave no room for what the runtime does not count, so the
// collector gets the limit less a tenth, and at least minMemoryReserve less.
// An explicit GOMEMLIMIT wins: the runtime has already read it. ok is false
// when there is nothing to set.
func collectorMemoryLimit(getenv func(string) string) (limit int64, ok bool, err error) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false, nil
	}
	v := getenv(envContainerMemoryLimit)
	if v == "" {
		return 0, false, nil
	}
	container, err := strconv.ParseInt(v, 10, 64)
	if err != nil || container <= 0 {
		return 0, false, fmt.Errorf("%s=%q is not a whole number of bytes above zero: set it from the container's resourceFieldRef limits.memory without a divisor, or unset it", envContainerMemoryLimit, v)
	}
	reserve := max(container/10, minMemoryReserve)
	if container <= 2*reserve {
		return 0, false, fmt.Errorf("%s=%d leaves the collector at most %d MiB once %d MiB are kept for what it does not count; the manager idles at about 60 MiB: raise the container's memory limit", envContainerMemoryLimit, container, reserve>>20, reserve>>20)
	}
	return container - reserve, true, nil
}
