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
