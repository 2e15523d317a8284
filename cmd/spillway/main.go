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

// Command spillway is Spillway's CLI. It mirrors liqoctl's verbs, but instead
// of changing clusters it writes manifests into the fleet repository that Flux
// applies, plans what a change to that repository will do, and reads the
// status of live clusters.
//
// Exit codes: 0 success; 1 the command ran and failed, or the plan holds a
// change admission would reject; 2 the command could not run as asked (a bad
// flag, argument or ref).
package main

import (
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
