//go:build e2e

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

package trust_test

import (
	"bufio"
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/webhooks"
	"github.com/spillway-dev/spillway/webhooks/twinobjects"
)

// twinSlice is an EndpointSlice of a selector-less Service in the twin, with
// one endpoint at address whose pod is in refNamespace. The lab's managers
// are given no network ranges, so the tests that apply here are the
// namespace one and the multicast one (the API server itself refuses
// loopback and link-local addresses).
func twinSlice(name, refNamespace, address string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: name, Labels: map[string]string{
			discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "trust.e2e.spillway.liqo.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{address}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: refNamespace, Name: "web"}}},
	}
}

// milanMetric sums the samples of a counter of milan's API server whose
// label set contains every one of labels, from its own /metrics.
func milanMetric(ctx context.Context, name string, labels ...string) float64 {
	GinkgoHelper()
	cs, err := milan.Clientset()
	Expect(err).NotTo(HaveOccurred())
	body, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	var sum float64
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
lines:
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(line, l) {
				continue lines
			}
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		Expect(err).NotTo(HaveOccurred(), line)
		sum += v
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return sum
}

// twinObjectsWebhookCalls is how many admission requests milan's API server
// has sent the twin objects webhook.
func twinObjectsWebhookCalls(ctx context.Context) float64 {
	GinkgoHelper()
	return milanMetric(ctx, "apiserver_admission_webhook_admission_duration_seconds_count", `name="twinobjects.spillway.liqo.io"`)
}

// slicePolicyRefusals is how many refusals milan's API server has made with
// the twins' EndpointSlice policy (it counts no admissions).
func slicePolicyRefusals(ctx context.Context) float64 {
	GinkgoHelper()
	return milanMetric(ctx, "apiserver_validating_admission_policy_check_total", `policy="`+twinobjects.SlicePolicyName+`"`, `enforcement_action="deny"`)
}

// twinWebhookResources are the resources milan sends the twin objects webhook.
func twinWebhookResources(ctx context.Context) []string {
	GinkgoHelper()
	v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	Expect(milanC.Get(ctx, client.ObjectKey{Name: webhooks.ValidatingConfigurationName}, v)).To(Succeed())
	var resources []string
	for _, w := range v.Webhooks {
		if w.Name == "twinobjects.spillway.liqo.io" {
			for _, r := range w.Rules {
				resources = append(resources, r.Resources...)
			}
		}
	}
	return resources
}

var _ = Describe("what a consumer writes into its twin besides pods", func() {
	It("has milan's API server refuse a consumer's endpoints that name another namespace or a multicast group, with no webhook call, and admit milan's own writes", func(ctx context.Context) {
		By("milan's manager handing the twins' EndpointSlices to its policy once the API server has had it for an interval")
		Eventually(func() []string { return twinWebhookResources(ctx) }).WithContext(ctx).WithTimeout(3 * time.Minute).WithPolling(2 * time.Second).
			ShouldNot(ContainElement("endpointslices"))
		Expect(twinWebhookResources(ctx)).To(ContainElement("services"), "the webhook still judges the other kinds")
		policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		Eventually(func(g Gomega) {
			g.Expect(milanC.Get(ctx, client.ObjectKey{Name: twinobjects.SlicePolicyName}, policy)).To(Succeed())
			g.Expect(policy.Status.ObservedGeneration).To(Equal(policy.Generation), "the API server's type checker has read the policy")
		}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
		Expect(ptr.Deref(policy.Status.TypeChecking, admissionregistrationv1.TypeChecking{}).ExpressionWarnings).To(BeEmpty(),
			"the policy's CEL type-checks against milan's EndpointSlice schema")

		calls, refusals := twinObjectsWebhookCalls(ctx), slicePolicyRefusals(ctx)
		refused := `endpoints[0].targetRef names namespace "kube-system"`

		By("rome's identity creating a slice whose endpoint is a pod of kube-system")
		Expect(tenantC.Create(ctx, twinSlice("elsewhere", "kube-system", "192.0.2.10"))).To(MatchError(ContainSubstring(refused)))

		By("rome's identity moving an admitted slice's endpoint there")
		admitted := twinSlice("moved", twin, "192.0.2.10")
		Expect(tenantC.Create(ctx, admitted)).To(Succeed())
		admitted.Endpoints[0].TargetRef.Namespace = "kube-system"
		Expect(tenantC.Update(ctx, admitted)).To(MatchError(ContainSubstring(refused)))
		got := &discoveryv1.EndpointSlice{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: twin, Name: "moved"}, got)).To(Succeed())
		Expect(got.Endpoints[0].TargetRef.Namespace).To(Equal(twin), "the refused update stored nothing")

		By("rome's identity pointing an endpoint at a multicast group, which milan's own validation admits")
		Expect(tenantC.Create(ctx, twinSlice("group", twin, "239.1.2.3"))).
			To(MatchError(ContainSubstring("endpoints[0].addresses has 239.1.2.3, a multicast address")))
		Expect(slicePolicyRefusals(ctx)).To(Equal(refusals+3), "the API server's policy refused the consumer's three bad writes")

		By("milan's admin writing the first slice, as its own controllers write into twins")
		Expect(milanC.Create(ctx, twinSlice("providers-own", "kube-system", "192.0.2.10"))).To(Succeed())
		Expect(slicePolicyRefusals(ctx)).To(Equal(refusals+3), "the provider's own write is not judged")
		Expect(twinObjectsWebhookCalls(ctx)).To(Equal(calls), "no slice made a round trip to the webhook")
	})
})
