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
	"strconv"
	"strings"
	"testing"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestCollectorMemoryLimitFollowsTheContainers(t *testing.T) {
	const gib = int64(1) << 30
	for _, tc := range []struct {
		name   string
		vars   map[string]string
		want   int64
		wantOK bool
		errHas string
	}{
		{name: "no limit given", vars: nil},
		{name: "an explicit GOMEMLIMIT wins", vars: map[string]string{"GOMEMLIMIT": "300MiB", envContainerMemoryLimit: "1073741824"}},
		{name: "1Gi keeps a tenth back", vars: map[string]string{envContainerMemoryLimit: "1073741824"}, want: gib - gib/10, wantOK: true},
		{name: "256Mi keeps 64 MiB back", vars: map[string]string{envContainerMemoryLimit: strconv.FormatInt(256<<20, 10)}, want: 192 << 20, wantOK: true},
		{name: "a quantity with a unit", vars: map[string]string{envContainerMemoryLimit: "1Gi"}, errHas: "resourceFieldRef limits.memory without a divisor"},
		{name: "zero", vars: map[string]string{envContainerMemoryLimit: "0"}, errHas: "above zero"},
		{name: "too small to run in", vars: map[string]string{envContainerMemoryLimit: strconv.FormatInt(128<<20, 10)}, errHas: "raise the container's memory limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := collectorMemoryLimit(env(tc.vars))
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) || !strings.Contains(err.Error(), envContainerMemoryLimit) {
					t.Fatalf("error %v, want one naming %s and saying %q", err, envContainerMemoryLimit, tc.errHas)
				}
				return
			}
			if err != nil || ok != tc.wantOK || got != tc.want {
				t.Fatalf("got %d, %v, %v; want %d, %v, no error", got, ok, err, tc.want, tc.wantOK)
			}
		})
	}
}

// The value comes from the Deployment, which a user patches: whatever it
// holds, the manager either refuses it by name or sets a limit inside the
// container's, with the reserve left.
func FuzzCollectorMemoryLimit(f *testing.F) {
	for _, s := range []string{"1073741824", "268435456", "1Gi", "-1", "0", "9223372036854775807", " 42", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		limit, ok, err := collectorMemoryLimit(env(map[string]string{envContainerMemoryLimit: v}))
		if err != nil {
			if ok || !strings.Contains(err.Error(), envContainerMemoryLimit) {
				t.Fatalf("%q: error %v with ok %v; an error must name %s and set nothing", v, err, ok, envContainerMemoryLimit)
			}
			return
		}
		if !ok {
			if v != "" {
				t.Fatalf("%q: neither an error nor a limit", v)
			}
			return
		}
		container, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || limit <= 0 || container-limit < minMemoryReserve || limit > container-container/10 {
			t.Fatalf("%q: limit %d is not inside the container's %d less the reserve", v, limit, container)
		}
	})
}
