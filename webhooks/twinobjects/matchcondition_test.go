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

package twinobjects

import (
	"testing"

	"github.com/google/cel-go/cel"
)

// matchesConsumersOnly evaluates the match condition as CEL, with the
// request reduced to the one field it reads. The API server's own typing of
// request is checked by the trust suite, which has it refuse a consumer's
// write and admit the provider's.
func matchesConsumersOnly(t testing.TB, username string) bool {
	t.Helper()
	env, err := cel.NewEnv(cel.Variable("request", cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(ConsumersOnly().Expression)
	if iss.Err() != nil {
		t.Fatalf("%s does not compile: %v", ConsumersOnly().Expression, iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := prg.Eval(map[string]any{"request": map[string]any{"userInfo": map[string]any{"username": username}}})
	if err != nil {
		t.Fatalf("evaluating for %q: %v", username, err)
	}
	matched, ok := out.Value().(bool)
	if !ok {
		t.Fatalf("the condition gave %v, not a bool", out)
	}
	return matched
}

// The condition must call the webhook for exactly the identities Handle
// judges: one that missed a consumer would let its writes in unchecked.
func FuzzConsumersOnlyAgreesWithIsConsumer(f *testing.F) {
	for _, u := range []string{rome, "system:serviceaccount:liqo:spillway-controller", "liqo-tenant-rome",
		"system:serviceaccount:kube-system:endpointslice-controller", "system:kube-controller-manager", "",
		"system:serviceaccount:liqo-tenant-", "System:ServiceAccount:liqo-tenant-rome:x", `system:serviceaccount:liqo-tenant-"x`} {
		f.Add(u)
	}
	f.Fuzz(func(t *testing.T, username string) {
		if got, want := matchesConsumersOnly(t, username), IsConsumer(username); got != want {
			t.Fatalf("for %q the match condition says %v, IsConsumer %v", username, got, want)
		}
	})
}
