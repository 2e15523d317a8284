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
	"net"
	"strings"
	"testing"
)

func TestServePprofRejectsATakenAddressNamingTheFix(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	err = servePprof(l.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "free host:port") {
		t.Fatalf("servePprof on a taken port: %v, want an error naming the fix", err)
	}
}

func TestServePprofIsOffByDefault(t *testing.T) {
	for _, addr := range []string{"", "0"} {
		if err := servePprof(addr); err != nil {
			t.Errorf("servePprof(%q): %v, want nil (off)", addr, err)
		}
	}
}
