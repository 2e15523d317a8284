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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// An excerpt of kube-apiserver v1.36's /metrics, shortened to the buckets
// around the 5 ms bound.
const providerMetrics = `# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="PUT",version="v1",le="0.005"} 7
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="PUT",version="v1",le="0.025"} 9
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="PUT",version="v1",le="+Inf"} 10
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="PUT",version="v1"} 0.05
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="PUT",version="v1"} 10
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="POST",version="v1",le="0.005"} 1
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="POST",version="v1",le="+Inf"} 4
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="POST",version="v1"} 1
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="discovery.k8s.io",resource="endpointslices",scope="resource",subresource="",verb="POST",version="v1"} 4
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="PUT",version="v1",le="0.005"} 3
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="PUT",version="v1",le="+Inf"} 3
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="PUT",version="v1"} 0.006
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="PUT",version="v1"} 3
# HELP apiserver_admission_webhook_admission_duration_seconds [STABLE] Admission webhook latency histogram in seconds, identified by name and broken out for each operation and API resource and type (validate or admit).
# TYPE apiserver_admission_webhook_admission_duration_seconds histogram
apiserver_admission_webhook_admission_duration_seconds_bucket{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="false",type="validating",le="0.005"} 6
apiserver_admission_webhook_admission_duration_seconds_bucket{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="false",type="validating",le="+Inf"} 8
apiserver_admission_webhook_admission_duration_seconds_sum{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="false",type="validating"} 0.016
apiserver_admission_webhook_admission_duration_seconds_count{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="false",type="validating"} 8
apiserver_admission_webhook_admission_duration_seconds_bucket{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="true",type="validating",le="0.005"} 2
apiserver_admission_webhook_admission_duration_seconds_bucket{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="true",type="validating",le="+Inf"} 2
apiserver_admission_webhook_admission_duration_seconds_sum{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="true",type="validating"} 0.004
apiserver_admission_webhook_admission_duration_seconds_count{name="twinobjects.spillway.liqo.io",operation="UPDATE",rejected="true",type="validating"} 2
apiserver_admission_webhook_admission_duration_seconds_bucket{name="twinobjects.spillway.liqo.io",operation="CREATE",rejected="false",type="validating",le="0.005"} 0
apiserver_admission_webhook_admission_duration_seconds_bucket{name="twinobjects.spillway.liqo.io",operation="CREATE",rejected="false",type="validating",le="+Inf"} 5
apiserver_admission_webhook_admission_duration_seconds_sum{name="twinobjects.spillway.liqo.io",operation="CREATE",rejected="false",type="validating"} 1
apiserver_admission_webhook_admission_duration_seconds_count{name="twinobjects.spillway.liqo.io",operation="CREATE",rejected="false",type="validating"} 5
`

func TestProviderWritesReadsTheKindsPutsAndTheWebhooksUpdates(t *testing.T) {
	g := NewWithT(t)
	p, err := parseProviderWrites(strings.NewReader(providerMetrics), "endpointslices")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(p.Puts).To(Equal(latencies{Count: 10, SumSeconds: 0.05, UpToSlow: 7}), "PUTs of endpointslices only, not its POSTs nor configmaps")
	g.Expect(p.Puts.MeanMs()).To(BeNumerically("~", 5, 1e-9))
	g.Expect(p.Puts.SlowShare()).To(BeNumerically("~", 0.3, 1e-9))
	g.Expect(p.Webhooks).To(Equal(latencies{Count: 10, SumSeconds: 0.02, UpToSlow: 8}), "UPDATE calls, admitted and rejected, not CREATEs")

	cms, err := parseProviderWrites(strings.NewReader(providerMetrics), "configmaps")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cms.Puts.Count).To(Equal(3.0))
	d := p.since(cms).Puts
	g.Expect([]float64{d.Count, d.UpToSlow}).To(Equal([]float64{7, 4}))
	g.Expect(d.SumSeconds).To(BeNumerically("~", 0.044, 1e-12))
	g.Expect(latencies{}.MeanMs()).To(BeZero(), "no samples, no division")
}
