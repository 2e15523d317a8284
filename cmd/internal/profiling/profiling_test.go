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

package profiling

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestMuxServesTheHeapProfileAndNothingElse(t *testing.T) {
	srv := httptest.NewServer(Mux())
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/debug/pprof/heap?debug=1"); code != http.StatusOK || !strings.Contains(body, "heap profile") {
		t.Fatalf("GET /debug/pprof/heap: %d %.200s", code, body)
	}
	// Handlers other packages add to http.DefaultServeMux stay off this port.
	// The path is new at every run: the default mux refuses a pattern twice
	// (go test -count=2).
	added := fmt.Sprintf("/debug/added-by-an-import-%d", time.Now().UnixNano())
	http.DefaultServeMux.HandleFunc(added, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("leak")) })
	if code, _ := get(added); code != http.StatusNotFound {
		t.Fatalf("GET a handler of the default mux: %d, want 404", code)
	}
}
