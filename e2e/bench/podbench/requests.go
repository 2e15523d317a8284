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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// RequestKey is one kind of API request: the verb as the API server counts
// it (POST, PUT, PATCH, DELETE, GET, LIST, WATCH...) and the resource, "pods/status" for a
// subresource and "shadowpods.virtualkubelet.liqo.io" outside the core group.
// Code is the response's HTTP code for DELETEs and the resources in ByCode,
// empty for the others (summed over codes).
type RequestKey struct {
	Verb, Resource, Code string
}

// ByCode are the resources whose requests are counted per response code: a
// status write the API server refused (409 Conflict, retried by
// virtual-kubelet; 404 on a pod already deleted) counts as a write like one
// it took, and only the code tells them apart (issue 17, lever 3). Every
// DELETE is counted per code too: kwok, finishing a pod as a kubelet would,
// deletes pods already gone (404) on both paths, and only the code tells
// those from deletes that removed something. ShadowPods are counted per code
// because the provider's API server answers a repeated create AlreadyExists
// (409) only after its webhooks and schema checks have run: a write paid
// almost in full that leaves no second ShadowPod.
var ByCode = []string{"pods/status", "shadowpods.virtualkubelet.liqo.io"}

// byCode reports whether a request of this verb and resource is counted per
// response code.
func byCode(verb, resource string) bool {
	return verb == "DELETE" || slices.Contains(ByCode, resource)
}

// String is the key as the traffic table prints it.
func (k RequestKey) String() string {
	if k.Code == "" {
		return k.Resource
	}
	return k.Resource + " (" + k.Code + ")"
}

// Requests counts requests by kind.
type Requests map[RequestKey]float64

// writeVerbs are the values of apiserver_request_total's verb label that
// change state: the HTTP method, with APPLY for a server-side apply patch and
// DELETECOLLECTION for a delete of a list. Reads (GET, LIST, WATCH) are served
// from the watch cache and cost far less.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "APPLY": true, "DELETE": true, "DELETECOLLECTION": true}

// IsWrite reports whether the API server verb changes state.
func IsWrite(verb string) bool { return writeVerbs[verb] }

// Since returns what was counted between before and r.
func (r Requests) Since(before Requests) Requests { return countedSince(r, before) }

// countedSince returns what counters counted between two snapshots, leaving
// out those that did not move; a counter that went down (the process
// restarted) counts from zero.
func countedSince[K comparable, M ~map[K]float64](now, before M) M {
	out := M{}
	for k, v := range now {
		if b, ok := before[k]; ok && b <= v {
			v -= b
		}
		if v > 0 {
			out[k] = v
		}
	}
	return out
}

// Writes sums the writes, leaving out the resources in skip.
func (r Requests) Writes(skip ...string) float64 {
	var n float64
	for k, v := range r {
		if IsWrite(k.Verb) && !slices.Contains(skip, k.Resource) {
			n += v
		}
	}
	return n
}

// TimeDriven are the resources written on a clock whatever the pods do (node
// and leader leases); the per-pod targets leave them out, the tables show them.
var TimeDriven = []string{"leases.coordination.k8s.io"}

// ParseAPIServerRequests reads apiserver_request_total from an API server's
// /metrics, summing over scopes, versions and, but for DELETEs and ByCode's
// resources, response codes.
func ParseAPIServerRequests(r io.Reader) (Requests, error) {
	families, err := parseMetrics(r)
	if err != nil {
		return nil, err
	}
	return apiServerRequests(families)
}

func apiServerRequests(families metricFamilies) (Requests, error) {
	out := Requests{}
	err := families.eachCounter("apiserver_request_total", func(l map[string]string, v float64) {
		if l["resource"] == "" {
			return // non-resource URLs: /healthz, /metrics...
		}
		res := resourceName(l)
		if s := l["subresource"]; s != "" {
			res += "/" + s
		}
		k := RequestKey{Verb: l["verb"], Resource: res}
		if byCode(k.Verb, res) {
			k.Code = l["code"]
		}
		out[k] += v
	})
	return out, err
}

// ClientKey is one kind of request a client-go client sent: to which
// cluster, with which HTTP method.
type ClientKey struct {
	Cluster, Method string
}

// ClientRequests counts a process's outgoing API requests.
type ClientRequests map[ClientKey]float64

// Since returns what was counted between before and c.
func (c ClientRequests) Since(before ClientRequests) ClientRequests { return countedSince(c, before) }

// ParseClientRequests reads rest_client_requests_total from a controller's
// /metrics; clusters maps an API server's host:port to the cluster's name.
func ParseClientRequests(r io.Reader, clusters map[string]string) (ClientRequests, error) {
	families, err := parseMetrics(r)
	if err != nil {
		return nil, err
	}
	out := ClientRequests{}
	err = families.eachCounter("rest_client_requests_total", func(l map[string]string, v float64) {
		name, ok := clusters[l["host"]]
		if !ok {
			name = l["host"]
		}
		out[ClientKey{Cluster: name, Method: l["method"]}] += v
	})
	return out, err
}

// resourceName is an API server metric's resource, "<resource>.<group>"
// outside the core group.
func resourceName(l map[string]string) string {
	if g := l["group"]; g != "" {
		return l["resource"] + "." + g
	}
	return l["resource"]
}

// errNoMetric is eachCounter's error for metrics without the counter asked for.
var errNoMetric = errors.New("no such counter")

// metricFamilies are a /metrics text parsed once, by metric name.
type metricFamilies map[string]*dto.MetricFamily

func parseMetrics(r io.Reader) (metricFamilies, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("parsing metrics: %w", err)
	}
	return families, nil
}

func (families metricFamilies) eachCounter(name string, f func(labels map[string]string, v float64)) error {
	fam, ok := families[name]
	if !ok {
		return fmt.Errorf("metrics have no %s: %w", name, errNoMetric)
	}
	for _, m := range fam.GetMetric() {
		f(MetricLabels(m), m.GetCounter().GetValue())
	}
	return nil
}

// MetricLabels are a parsed metric's labels by name.
func MetricLabels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, lp := range m.GetLabel() {
		out[lp.GetName()] = lp.GetValue()
	}
	return out
}

// Traffic is the API requests counted during one path's batch: each API
// server's, and each Spillway manager's outgoing share.
type Traffic struct {
	APIServer map[string]Requests       // by cluster
	Manager   map[string]ClientRequests // by the cluster the manager runs in
	// ClosedWatches are, by cluster, the watches its API server closed
	// because the client read too slowly (apiserver_terminated_watchers_total),
	// by resource. Such a client watches again and may be sent every object
	// again, and what it does for the pods waits meanwhile: the lab's kwok
	// was, at every close, until the lab built it to resume (hack/tools.sh;
	// docs/performance.md, twenty-first round).
	ClosedWatches map[string]Counts
}

// Counts are counter values by resource ("pods", "shadowpods.virtualkubelet.liqo.io").
type Counts map[string]float64

// Since returns what was counted between before and c.
func (c Counts) Since(before Counts) Counts { return countedSince(c, before) }

// since subtracts a snapshot taken before.
func (t Traffic) since(before Traffic) Traffic {
	out := Traffic{APIServer: map[string]Requests{}, Manager: map[string]ClientRequests{}, ClosedWatches: map[string]Counts{}}
	for c, r := range t.APIServer {
		out.APIServer[c] = r.Since(before.APIServer[c])
	}
	for c, r := range t.Manager {
		out.Manager[c] = r.Since(before.Manager[c])
	}
	for c, r := range t.ClosedWatches {
		if d := r.Since(before.ClosedWatches[c]); len(d) > 0 {
			out.ClosedWatches[c] = d
		}
	}
	return out
}

// ParseClosedWatches reads apiserver_terminated_watchers_total from an API
// server's /metrics, by resource. An API server that never closed a watcher
// exposes no such counter: that is no closed watch, not an error.
func ParseClosedWatches(r io.Reader) (Counts, error) {
	families, err := parseMetrics(r)
	if err != nil {
		return nil, err
	}
	return closedWatches(families)
}

func closedWatches(families metricFamilies) (Counts, error) {
	out := Counts{}
	err := families.eachCounter("apiserver_terminated_watchers_total", func(l map[string]string, v float64) {
		out[resourceName(l)] += v
	})
	if errors.Is(err, errNoMetric) {
		return out, nil
	}
	return out, err
}

// readTraffic snapshots the request counters of the clusters' API servers and
// Spillway managers.
func readTraffic(ctx context.Context, clusters ...*lab.Cluster) (Traffic, error) {
	t := Traffic{APIServer: map[string]Requests{}, Manager: map[string]ClientRequests{}, ClosedWatches: map[string]Counts{}}
	hosts := map[string]string{}
	for _, c := range clusters {
		// Peers reach a cluster through its peer link, the admin through Server.
		for _, server := range []string{c.Server(), c.PeerServer()} {
			u, err := url.Parse(server)
			if err != nil {
				return t, err
			}
			hosts[u.Host] = c.Name
		}
	}
	for _, c := range clusters {
		cs, err := c.Clientset()
		if err != nil {
			return t, err
		}
		raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		if err != nil {
			return t, fmt.Errorf("cluster %s: reading the API server's /metrics: %w", c.Name, err)
		}
		// Parsed once: an API server's /metrics runs to megabytes.
		families, err := parseMetrics(bytes.NewReader(raw))
		if err == nil {
			t.APIServer[c.Name], err = apiServerRequests(families)
		}
		if err == nil {
			t.ClosedWatches[c.Name], err = closedWatches(families)
		}
		if err != nil {
			return t, fmt.Errorf("cluster %s: API server: %w", c.Name, err)
		}
		if t.Manager[c.Name], err = managerRequests(ctx, c, hosts); err != nil {
			return t, fmt.Errorf("cluster %s: %s: %w", c.Name, framework.ManagerProcess, err)
		}
	}
	return t, nil
}

// managerRequests reads the manager's client counters from the metrics port
// framework.StartManager gives it.
func managerRequests(ctx context.Context, c *lab.Cluster, hosts map[string]string) (ClientRequests, error) {
	port, err := c.ExtraPort(0)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://127.0.0.1:"+strconv.Itoa(port)+"/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return ParseClientRequests(resp.Body, hosts)
}

// TrafficSummary is what the targets compare: writes per pod in each
// cluster, time-driven resources left out.
type TrafficSummary struct {
	// VanillaWrites is per vanilla pod, in the provider (where vanilla pods live).
	VanillaWrites float64
	// ProviderWrites and ConsumerWrites are per offloaded pod.
	ProviderWrites, ConsumerWrites float64
	// Creation are the same three counted only until the last pod was
	// Running: the "+ 2 (the ShadowPod and one status)" names the
	// creation's writes, and a deletion costs each path differently (the
	// bench deletes vanilla pods by collection, the provider deletes each
	// offloaded pod and its ShadowPod). Zero when not counted.
	Creation struct{ VanillaWrites, ProviderWrites, ConsumerWrites float64 }
	// TwoHops are per pod through the broker, in each cluster; nil when the
	// run left two hops out.
	TwoHops *TwoHopsWrites `json:",omitempty"`
}

// TwoHopsWrites are the writes per two-hop pod in each of its three clusters.
type TwoHopsWrites struct {
	ProviderWrites, BrokerWrites, ConsumerWrites float64
}

// SummarizeTraffic divides a batch's writes by its pod count.
func SummarizeTraffic(r Result) TrafficSummary {
	n := float64(r.Pods)
	s := TrafficSummary{
		VanillaWrites:  r.VanillaTraffic.APIServer["milan"].Writes(TimeDriven...) / n,
		ProviderWrites: r.OffloadedTraffic.APIServer["milan"].Writes(TimeDriven...) / n,
		ConsumerWrites: r.OffloadedTraffic.APIServer["rome"].Writes(TimeDriven...) / n,
	}
	s.Creation.VanillaWrites = r.VanillaCreation.APIServer["milan"].Writes(TimeDriven...) / n
	s.Creation.ProviderWrites = r.OffloadedCreation.APIServer["milan"].Writes(TimeDriven...) / n
	s.Creation.ConsumerWrites = r.OffloadedCreation.APIServer["rome"].Writes(TimeDriven...) / n
	if r.TwoHops != nil {
		t := r.TwoHops.Traffic.APIServer
		s.TwoHops = &TwoHopsWrites{ProviderWrites: t["milan"].Writes(TimeDriven...) / n, BrokerWrites: t["genoa"].Writes(TimeDriven...) / n,
			ConsumerWrites: t["rome"].Writes(TimeDriven...) / n}
	}
	return s
}

// clusters are the clusters a batch counted, consumer first, provider last.
func (r Result) clusters() []string {
	if r.TwoHops == nil {
		return []string{"rome", "milan"}
	}
	return []string{"rome", "genoa", "milan"}
}

// WriteTrafficTable prints the requests per pod by cluster, verb and resource
// for every path, then the targets of issue 17: provider writes ≤ vanilla + 2
// per pod, consumer writes ≤ vanilla + 1; and the writes per pod of two hops
// in each cluster.
func WriteTrafficTable(w io.Writer, r Result) error {
	n := float64(r.Pods)
	modes := r.Modes()
	fmt.Fprintf(w, "API requests per pod, %d pods, create → deleted (from apiserver_request_total)\n", r.Pods)
	tw := newTable(w)
	fmt.Fprintf(tw, "cluster\tverb\tresource\t%s\t\n", joinModes(modes))
	for _, cluster := range r.clusters() {
		keys := map[RequestKey]bool{}
		for _, m := range modes {
			for k := range r.Traffic(m).APIServer[cluster] {
				keys[k] = true
			}
		}
		for _, k := range slices.SortedFunc(maps.Keys(keys), compareKeys) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", cluster, k.Verb, k)
			for _, m := range modes {
				fmt.Fprintf(tw, "%.2f\t", r.Traffic(m).APIServer[cluster][k]/n)
			}
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s\twrites\t(all but leases)\t", cluster)
		for _, m := range modes {
			fmt.Fprintf(tw, "%.2f\t", r.Traffic(m).APIServer[cluster].Writes(TimeDriven...)/n)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nSpillway managers' outgoing requests per pod (rest_client_requests_total)\n")
	tw = newTable(w)
	fmt.Fprintf(tw, "manager\tto\tmethod\t%s\t\n", joinModes(modes))
	for _, mgr := range r.clusters() {
		keys := map[ClientKey]bool{}
		for _, m := range modes {
			for k := range r.Traffic(m).Manager[mgr] {
				keys[k] = true
			}
		}
		for _, k := range slices.SortedFunc(maps.Keys(keys), func(a, b ClientKey) int {
			return strings.Compare(a.Cluster+" "+a.Method, b.Cluster+" "+b.Method)
		}) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t", mgr, k.Cluster, k.Method)
			for _, m := range modes {
				fmt.Fprintf(tw, "%.2f\t", r.Traffic(m).Manager[mgr][k]/n)
			}
			fmt.Fprintln(tw)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := SummarizeTraffic(r)
	fmt.Fprintf(w, "\nwrites per pod (leases left out): vanilla %.2f in milan; offloaded %.2f in milan (target ≤ %.2f: %s), %.2f in rome (target ≤ %.2f: %s)\n",
		s.VanillaWrites, s.ProviderWrites, s.VanillaWrites+2, verdict(s.ProviderWrites <= s.VanillaWrites+2),
		s.ConsumerWrites, s.VanillaWrites+1, verdict(s.ConsumerWrites <= s.VanillaWrites+1))
	writeWritesByPhase(w, s)
	if t := s.TwoHops; t != nil {
		fmt.Fprintf(w, "two hops: %.2f in milan, %.2f in genoa (the broker), %.2f in rome; %.2f in all three against one hop's %.2f\n",
			t.ProviderWrites, t.BrokerWrites, t.ConsumerWrites, t.ProviderWrites+t.BrokerWrites+t.ConsumerWrites, s.ProviderWrites+s.ConsumerWrites)
	}
	return nil
}

// writeWritesByPhase splits the writes per pod at the last pod Running:
// the creation, and the deletion that follows; each offloaded figure with
// its difference from vanilla's.
func writeWritesByPhase(w io.Writer, s TrafficSummary) {
	c := s.Creation
	if c.VanillaWrites == 0 {
		return
	}
	fmt.Fprintf(w, "  of which the creation (to the last pod Running): vanilla %.2f in milan; offloaded %.2f in milan (%+.2f), %.2f in rome (%+.2f)\n",
		c.VanillaWrites, c.ProviderWrites, c.ProviderWrites-c.VanillaWrites, c.ConsumerWrites, c.ConsumerWrites-c.VanillaWrites)
	v, p, r := s.VanillaWrites-c.VanillaWrites, s.ProviderWrites-c.ProviderWrites, s.ConsumerWrites-c.ConsumerWrites
	fmt.Fprintf(w, "  and the deletion: vanilla %.2f in milan; offloaded %.2f in milan (%+.2f), %.2f in rome (%+.2f)\n", v, p, p-v, r, r-v)
}

func joinModes(modes []Mode) string {
	out := make([]string, len(modes))
	for i, m := range modes {
		out[i] = string(m)
	}
	return strings.Join(out, "\t")
}

func compareKeys(a, b RequestKey) int {
	if c := strings.Compare(a.Resource, b.Resource); c != 0 {
		return c
	}
	if c := strings.Compare(a.Verb, b.Verb); c != 0 {
		return c
	}
	return strings.Compare(a.Code, b.Code)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
}
