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

package framework

import (
	"strings"
	"testing"
)

// Two profiles of one binary: the program counters of a stack differ between
// them only in the header line, and the same stack is keyed alike.
const goroutinesBefore = `goroutine profile: total 3
2 @ 0x4418ce 0x47a8e5
#	0x47a8e4	net/http.(*persistConn).readLoop+0x1a4	/go/src/net/http/transport.go:2205

1 @ 0x4418ce 0x40a1b2
#	0x40a1b1	main.main+0x51	/src/main.go:10
`

const goroutinesAfter = `goroutine profile: total 8
6 @ 0x4418ce 0x47a8e5
#	0x47a8e4	net/http.(*persistConn).readLoop+0x1a4	/go/src/net/http/transport.go:2205

1 @ 0x4418ce 0x40a1b2
#	0x40a1b1	main.main+0x51	/src/main.go:10

1 @ 0x4418ce 0x50c3d4 0x50c3e9
#	0x50c3d3	k8s.io/client-go/tools/cache.(*Reflector).watch+0x93	/k/reflector.go:400
#	0x50c3e8	k8s.io/client-go/tools/cache.(*Reflector).ListAndWatch+0x28	/k/reflector.go:300
`

func TestGoroutineGrowthNamesTheStacksThatGrew(t *testing.T) {
	before, err := ParseGoroutineStacks(strings.NewReader(goroutinesBefore))
	if err != nil {
		t.Fatal(err)
	}
	after, err := ParseGoroutineStacks(strings.NewReader(goroutinesAfter))
	if err != nil {
		t.Fatal(err)
	}
	readLoop := "net/http.(*persistConn).readLoop /go/src/net/http/transport.go:2205"
	if before[readLoop] != 2 || after[readLoop] != 6 {
		t.Fatalf("readLoop counted %d and %d, want 2 and 6; parsed %v", before[readLoop], after[readLoop], after)
	}
	growth := GoroutineGrowth(before, after, 10)
	if len(growth) != 2 {
		t.Fatalf("growth = %+v, want the readLoop and the reflector (main did not grow)", growth)
	}
	if growth[0].Stack != readLoop || growth[0].Before != 2 || growth[0].After != 6 {
		t.Fatalf("first growth = %+v, want readLoop 2 -> 6", growth[0])
	}
	if !strings.Contains(growth[1].Stack, "(*Reflector).watch /k/reflector.go:400\n") || growth[1].After != 1 {
		t.Fatalf("second growth = %+v, want the reflector's two frames", growth[1])
	}
	if got := GoroutineGrowth(before, after, 1); len(got) != 1 {
		t.Fatalf("limit 1 gave %d stacks", len(got))
	}
	if text := FormatGoroutineGrowth(growth[:1]); !strings.HasPrefix(text, "+4 goroutines (2 -> 6):\n    net/http") {
		t.Fatalf("formatted: %q", text)
	}
}

func TestParseGoroutineStacksRejectsABadCount(t *testing.T) {
	if _, err := ParseGoroutineStacks(strings.NewReader("x @ 0x1\n#\t0x1\tf+0x1\t/a.go:1\n")); err == nil {
		t.Fatal("a block whose count is not a number parsed")
	}
}
