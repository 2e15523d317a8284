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

package lab

import (
	"slices"
	"testing"
)

// TestAPIServersProfileOnlyWhenAsked reads the API server's command line the
// lab starts, so a hard-coded --profiling fails it too.
func TestAPIServersProfileOnlyWhenAsked(t *testing.T) {
	c := &Cluster{Name: "milan", lab: &Lab{dir: t.TempDir()}, state: &ClusterState{CIDRs: CIDRs{Service: "10.130.0.0/16"}}}
	for value, want := range map[string]string{"": "--profiling=false", "0": "--profiling=false", "1": "--profiling=true"} {
		t.Setenv(EnvAPIServerProfiling, value)
		args, err := c.componentArgs(APIServer)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(args, want) {
			t.Errorf("%s=%q: the API server runs with %q, want %s among them", EnvAPIServerProfiling, value, args, want)
		}
	}
}
