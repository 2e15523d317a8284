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

package reflectbench

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/spillway-dev/spillway/e2e/bench/podbench"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// slowWrite is the bucket bound the provider's figures count above: the
// API servers' histograms have a bound at 5 ms, about a vanilla p50 here.
const slowWrite = 0.005

// latencies is the part of one API server histogram the report reads.
type latencies struct {
	Count, SumSeconds, UpToSlow float64
}

func (l latencies) since(before latencies) latencies {
	return latencies{Count: l.Count - before.Count, SumSeconds: l.SumSeconds - before.SumSeconds, UpToSlow: l.UpToSlow - before.UpToSlow}
}

// MeanMs is the mean latency in milliseconds, 0 without samples.
func (l latencies) MeanMs() float64 {
	if l.Count == 0 {
		return 0
	}
	return l.SumSeconds / l.Count * 1000
}

// SlowShare is the share of samples above slowWrite.
func (l latencies) SlowShare() float64 {
	if l.Count == 0 {
		return 0
	}
	return (l.Count - l.UpToSlow) / l.Count
}

// ProviderWrites is what milan's API server measured of one batch's copy
// updates: its PUTs of the kind, and the calls its validating webhooks made
// on UPDATEs. Neither kind's copies go to a webhook once the twins'
// EndpointSlice policy is in force (the API server judges slices in
// process, inside the PUT); before it, the twin objects webhook judged
// every slice, and the difference between the two kinds' reflected
// latencies was in its calls.
type ProviderWrites struct {
	Puts     latencies
	Webhooks latencies
}

func (p ProviderWrites) since(before ProviderWrites) ProviderWrites {
	return ProviderWrites{Puts: p.Puts.since(before.Puts), Webhooks: p.Webhooks.since(before.Webhooks)}
}

// parseProviderWrites reads an API server's /metrics for resource's PUTs
// and the validating webhooks' UPDATE calls, summed over webhooks.
func parseProviderWrites(r io.Reader, resource string) (ProviderWrites, error) {
	var p ProviderWrites
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return p, fmt.Errorf("parsing metrics: %w", err)
	}
	add := func(into *latencies, family string, match func(map[string]string) bool) {
		for _, m := range families[family].GetMetric() {
			if !match(podbench.MetricLabels(m)) {
				continue
			}
			h := m.GetHistogram()
			into.Count += float64(h.GetSampleCount())
			into.SumSeconds += h.GetSampleSum()
			for _, b := range h.GetBucket() {
				if b.GetUpperBound() == slowWrite {
					into.UpToSlow += float64(b.GetCumulativeCount())
				}
			}
		}
	}
	add(&p.Puts, "apiserver_request_duration_seconds", func(l map[string]string) bool {
		return l["verb"] == "PUT" && l["resource"] == resource && l["subresource"] == ""
	})
	add(&p.Webhooks, "apiserver_admission_webhook_admission_duration_seconds", func(l map[string]string) bool {
		return l["operation"] == "UPDATE" && l["type"] == "validating"
	})
	return p, nil
}

// providerWrites reads c's API server's figures for resource now.
func providerWrites(ctx context.Context, c *lab.Cluster, resource string) (ProviderWrites, error) {
	cs, err := c.Clientset()
	if err != nil {
		return ProviderWrites{}, err
	}
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return ProviderWrites{}, fmt.Errorf("cluster %s: reading the API server's /metrics: %w", c.Name, err)
	}
	return parseProviderWrites(strings.NewReader(string(raw)), resource)
}
