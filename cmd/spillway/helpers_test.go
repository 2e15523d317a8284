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
	"bytes"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsjson "sigs.k8s.io/json"

	"github.com/spillway-dev/spillway/cli/fleet"
	"github.com/spillway-dev/spillway/cli/fleet/fleettest"
)

const exampleFleet = "../../clusters"

// result is what one run of the CLI did.
type result struct {
	code           int
	stdout, stderr string
}

func spillway(args ...string) result {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return result{code: code, stdout: out.String(), stderr: errOut.String()}
}

func copyFleet(t *testing.T) string { return fleettest.Copy(t, exampleFleet) }

// build renders a cluster's config folder and returns the object of the
// given kind and name, failing when the folder does not build.
func build(t *testing.T, fleetDir, cluster string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := fleet.Build(filepath.Join(fleetDir, cluster, "config"))
	if err != nil {
		t.Fatalf("the written folder no longer builds: %v", err)
	}
	return objs
}

func find(t *testing.T, objs []*unstructured.Unstructured, kind, namespace, name string) []byte {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetNamespace() == namespace && o.GetName() == name {
			j, err := o.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			return j
		}
	}
	t.Fatalf("no %s %s/%s", kind, namespace, name)
	return nil
}

// decodeStrict fails on any field the API type does not know, and matches
// field names case-sensitively, as the API server does.
func decodeStrict(t *testing.T, data []byte, out any) {
	t.Helper()
	strictErrs, err := sigsjson.UnmarshalStrict(data, out)
	if err := errors.Join(append(strictErrs, err)...); err != nil {
		t.Fatalf("strict decoding into %T: %v\n%s", out, err, data)
	}
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
