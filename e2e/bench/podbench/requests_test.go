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

package podbench

import (
	"strings"
	"testing"
)

const apiServerMetrics = `# HELP apiserver_request_total [STABLE] Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 10
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="POST",version="v1"} 2
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 7
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PUT",version="v1"} 5
apiserver_request_total{code="409",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PUT",version="v1"} 2
apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="status",verb="PUT",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="virtualkubelet.liqo.io",resource="shadowpods",scope="resource",subresource="",verb="PUT",version="v1alpha1"} 3
apiserver_request_total{code="201",component="apiserver",dry_run="",group="virtualkubelet.liqo.io",resource="shadowpods",scope="resource",subresource="",verb="POST",version="v1alpha1"} 9
apiserver_request_total{code="409",component="apiserver",dry_run="",group="virtualkubelet.liqo.io",resource="shadowpods",scope="resource",subresource="",verb="POST",version="v1alpha1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="DELETE",version="v1"} 6
apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="pods",scope="resource",subresource="",verb="DELETE",version="v1"} 4
apiserver_request_total{code="200",component="apiserver",dry_run="",group="coordination.k8s.io",resource="leases",scope="resource",subresource="",verb="PUT",version="v1"} 50
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"} 4
apiserver_request_total{code="200",component="",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} 99
# HELP other_total x
# TYPE other_total counter
other_total 1
`

func TestParseAPIServerRequestsSumsCodesAndNamesSubresourcesAndGroups(t *testing.T) {
	r, err := ParseAPIServerRequests(strings.NewReader(apiServerMetrics))
	if err != nil {
		t.Fatal(err)
	}
	want := Requests{
		{"POST", "pods", ""}: 12, {"PATCH", "pods/status", "200"}: 7,
		// ShadowPods by code: a create the provider answers AlreadyExists is a
		// repeated create, not a second ShadowPod.
		{"PUT", "shadowpods.virtualkubelet.liqo.io", "200"}:  3,
		{"POST", "shadowpods.virtualkubelet.liqo.io", "201"}: 9, {"POST", "shadowpods.virtualkubelet.liqo.io", "409"}: 1,
		// pods/status by code: a refused status write counts like one taken.
		{"PUT", "pods/status", "200"}: 5, {"PUT", "pods/status", "409"}: 2, {"PUT", "pods/status", "404"}: 1,
		{"PUT", "leases.coordination.k8s.io", ""}: 50, {"LIST", "pods", ""}: 4,
		// every DELETE by code: kwok's deletes of pods already gone are 404s.
		{"DELETE", "pods", "200"}: 6, {"DELETE", "pods", "404"}: 4,
	}
	if len(r) != len(want) {
		t.Fatalf("got %v, want %v", r, want)
	}
	for k, v := range want {
		if r[k] != v {
			t.Errorf("%v: got %v, want %v", k, r[k], v)
		}
	}
	if got := r.Writes(TimeDriven...); got != 50 {
		t.Errorf("writes without leases: %v, want 50 (12 pod creates, 7 status patches, 8 status puts and 10 deletes whatever their code, 3 ShadowPod updates, 10 ShadowPod creates)", got)
	}
	if got := r.Writes(); got != 100 {
		t.Errorf("all writes: %v, want 100", got)
	}
}

func TestIsWriteKnowsTheAPIServerVerbs(t *testing.T) {
	for verb, want := range map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true,
		"GET": false, "LIST": false, "WATCH": false, "CONNECT": false} {
		if IsWrite(verb) != want {
			t.Errorf("IsWrite(%q) = %v, want %v", verb, !want, want)
		}
	}
}

func TestParseAPIServerRequestsFailsWithoutTheCounter(t *testing.T) {
	if _, err := ParseAPIServerRequests(strings.NewReader("other_total 1\n")); err == nil || !strings.Contains(err.Error(), "apiserver_request_total") {
		t.Fatalf("got %v, want an error naming apiserver_request_total", err)
	}
}

func TestRequestsSinceSubtractsAndDropsUnchanged(t *testing.T) {
	before := Requests{{"POST", "pods", ""}: 10, {"LIST", "pods", ""}: 4}
	after := Requests{{"POST", "pods", ""}: 25, {"LIST", "pods", ""}: 4, {"PATCH", "pods/status", ""}: 3}
	got := after.Since(before)
	if len(got) != 2 || got[RequestKey{"POST", "pods", ""}] != 15 || got[RequestKey{"PATCH", "pods/status", ""}] != 3 {
		t.Fatalf("got %v, want 15 creates and 3 status patches", got)
	}
}

func TestParseClientRequestsNamesClustersByHost(t *testing.T) {
	text := `# TYPE rest_client_requests_total counter
rest_client_requests_total{code="200",host="127.0.0.1:18502",method="PATCH"} 5
rest_client_requests_total{code="409",host="127.0.0.1:18502",method="PATCH"} 1
rest_client_requests_total{code="201",host="127.0.0.1:18522",method="POST"} 8
`
	got, err := ParseClientRequests(strings.NewReader(text), map[string]string{"127.0.0.1:18502": "rome", "127.0.0.1:18522": "milan"})
	if err != nil {
		t.Fatal(err)
	}
	if got[ClientKey{"rome", "PATCH"}] != 6 || got[ClientKey{"milan", "POST"}] != 8 || len(got) != 2 {
		t.Fatalf("got %v", got)
	}
}

func TestWriteTrafficTableJudgesTheTargets(t *testing.T) {
	r := Result{Pods: 10,
		VanillaTraffic: Traffic{APIServer: map[string]Requests{"milan": {{"POST", "pods", ""}: 10, {"PATCH", "pods/status", ""}: 20}}},
		OffloadedTraffic: Traffic{APIServer: map[string]Requests{
			"milan": {{"POST", "pods", ""}: 10, {"PATCH", "pods/status", ""}: 20, {"POST", "shadowpods.virtualkubelet.liqo.io", ""}: 10, {"PUT", "shadowpods.virtualkubelet.liqo.io", ""}: 30},
			"rome":  {{"POST", "pods", ""}: 10, {"PATCH", "pods/status", ""}: 20, {"PUT", "leases.coordination.k8s.io", ""}: 500},
		}},
	}
	var out strings.Builder
	if err := WriteTrafficTable(&out, r); err != nil {
		t.Fatal(err)
	}
	want := "vanilla 3.00 in milan; offloaded 7.00 in milan (target ≤ 5.00: MISSED), 3.00 in rome (target ≤ 4.00: met)"
	if !strings.Contains(out.String(), want) {
		t.Fatalf("table:\n%s\nwant the line %q", out.String(), want)
	}
}

func TestWriteTrafficTableSplitsTheWritesAtTheLastPodRunning(t *testing.T) {
	create := func(n float64) Requests { return Requests{{"POST", "pods", ""}: n} }
	r := Result{Pods: 10,
		VanillaTraffic:    Traffic{APIServer: map[string]Requests{"milan": {{"POST", "pods", ""}: 40, {"DELETE", "pods", "404"}: 10}}},
		VanillaCreation:   Traffic{APIServer: map[string]Requests{"milan": create(40)}},
		OffloadedTraffic:  Traffic{APIServer: map[string]Requests{"milan": {{"POST", "pods", ""}: 60, {"DELETE", "pods", "200"}: 30}, "rome": create(45)}},
		OffloadedCreation: Traffic{APIServer: map[string]Requests{"milan": create(60), "rome": create(40)}},
	}
	var out strings.Builder
	if err := WriteTrafficTable(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"of which the creation (to the last pod Running): vanilla 4.00 in milan; offloaded 6.00 in milan (+2.00), 4.00 in rome (+0.00)",
		"and the deletion: vanilla 1.00 in milan; offloaded 3.00 in milan (+2.00), 0.50 in rome (-0.50)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("table:\n%s\nwant the line %q", out.String(), want)
		}
	}
	r.VanillaCreation, r.OffloadedCreation = Traffic{}, Traffic{}
	out.Reset()
	if err := WriteTrafficTable(&out, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "of which the creation") {
		t.Errorf("a run that did not count the creation apart prints no split:\n%s", out.String())
	}
}

func TestWriteTrafficTablePrintsStatusWritesPerCode(t *testing.T) {
	r := Result{Pods: 4,
		VanillaTraffic: Traffic{APIServer: map[string]Requests{"milan": {{"PATCH", "pods/status", "200"}: 4}}},
		OffloadedTraffic: Traffic{APIServer: map[string]Requests{
			"milan": {{"PATCH", "pods/status", "200"}: 4},
			"rome":  {{"PUT", "pods/status", "200"}: 6, {"PUT", "pods/status", "409"}: 1},
		}},
	}
	var out strings.Builder
	if err := WriteTrafficTable(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"PUT  pods/status (200)", "PUT  pods/status (409)"} {
		if !strings.Contains(out.String(), row) {
			t.Errorf("table:\n%s\nwant a row %q", out.String(), row)
		}
	}
	if got := SummarizeTraffic(r).ConsumerWrites; got != 1.75 {
		t.Errorf("rome's writes per pod: %v, want 1.75 (a refused write counts)", got)
	}
}

func TestParseClosedWatchesByResource(t *testing.T) {
	text := apiServerMetrics + `# HELP apiserver_terminated_watchers_total [STABLE] Counter of watchers closed due to unresponsiveness.
# TYPE apiserver_terminated_watchers_total counter
apiserver_terminated_watchers_total{group="",resource="pods"} 42
apiserver_terminated_watchers_total{group="virtualkubelet.liqo.io",resource="shadowpods"} 1
`
	got, err := ParseClosedWatches(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["pods"] != 42 || got["shadowpods.virtualkubelet.liqo.io"] != 1 {
		t.Fatalf("got %v, want 42 pod watches and 1 ShadowPod watch", got)
	}
	// An API server that never closed a watch has no such counter.
	if got, err := ParseClosedWatches(strings.NewReader(apiServerMetrics)); err != nil || len(got) != 0 {
		t.Fatalf("without the counter: got %v, %v; want none and no error", got, err)
	}
	if _, err := ParseClosedWatches(strings.NewReader("not metrics {\n")); err == nil {
		t.Fatal("unparsable metrics: want an error")
	}
}

func TestTrafficSinceKeepsOnlyTheWatchesClosedMeanwhile(t *testing.T) {
	before := Traffic{ClosedWatches: map[string]Counts{"milan": {"pods": 3}, "rome": {"pods": 1}}}
	after := Traffic{ClosedWatches: map[string]Counts{"milan": {"pods": 45, "events": 2}, "rome": {"pods": 1}}}
	got := after.since(before).ClosedWatches
	if len(got) != 1 || len(got["milan"]) != 2 || got["milan"]["pods"] != 42 || got["milan"]["events"] != 2 {
		t.Fatalf("got %v, want milan's 42 pod and 2 event watches, and no rome", got)
	}
	if text := closedWatchesText(got); text != "milan events 2, milan pods 42" {
		t.Fatalf("text %q", text)
	}
	if text := closedWatchesText(Traffic{}.since(Traffic{}).ClosedWatches); text != "" {
		t.Fatalf("no closed watch printed as %q", text)
	}
}
