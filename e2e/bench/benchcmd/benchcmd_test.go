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

package benchcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEnvPositiveIntKeepsTheDefaultSetsAValueAndNamesABadOne(t *testing.T) {
	const key = "SPILLWAY_BENCH_TEST_COUNT"
	n := 7
	t.Setenv(key, "")
	if err := EnvPositiveInt(key, "claims", &n); err != nil || n != 7 {
		t.Fatalf("unset: got %d, %v; want the default 7", n, err)
	}
	t.Setenv(key, "250")
	if err := EnvPositiveInt(key, "claims", &n); err != nil || n != 250 {
		t.Fatalf("250: got %d, %v", n, err)
	}
	for _, bad := range []string{"0", "-3", "ten", "1.5"} {
		t.Setenv(key, bad)
		err := EnvPositiveInt(key, "claims", &n)
		if err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "claims") {
			t.Errorf("%q: got %v; want an error naming %s and what it counts", bad, err, key)
		}
		if n != 250 {
			t.Errorf("%q: a rejected value changed the setting to %d", bad, n)
		}
	}
}

func TestEnvPositiveFloatAcceptsARateAndRefusesZero(t *testing.T) {
	const key = "SPILLWAY_BENCH_TEST_QPS"
	q := 50.0
	t.Setenv(key, "12.5")
	if err := EnvPositiveFloat(key, "updates per second", &q); err != nil || q != 12.5 {
		t.Fatalf("12.5: got %g, %v", q, err)
	}
	t.Setenv(key, "0")
	if err := EnvPositiveFloat(key, "updates per second", &q); err == nil || q != 12.5 {
		t.Fatalf("0: got %g, %v; want an error and the rate unchanged", q, err)
	}
}

func TestWriteResultsCreatesTheDirectoryAndEveryFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bench", "results")
	files := map[string][]byte{"a.txt": []byte("table\n"), "a.json": []byte("{}")}
	if err := WriteResults(dir, files); err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: got %q, %v; want %q", name, got, err, want)
		}
	}
}
