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

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// twinSlice is an EndpointSlice of a selector-less Service in the twin, with
// one endpoint whose pod is in refNamespace. The lab's managers are given no
// network ranges, so the webhook's test that applies here is the one of
// namespaces: a consumer's endpoint may name only the twin's objects (the
// API server itself refuses loopback and link-local addresses).
func twinSlice(name, refNamespace string) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: name, Labels: map[string]string{
			discoveryv1.LabelServiceName: name, discoveryv1.LabelManagedBy: "trust.e2e.spillway.liqo.io"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.10"}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)},
			TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: refNamespace, Name: "web"}}},
	}
}

// twinObjectsWebhookCalls is how many admission requests milan's API server
// has sent the twin objects webhook, from its own metrics.
func twinObjectsWebhookCalls(ctx context.Context) float64 {
	GinkgoHelper()
	cs, err := milan.Clientset()
	Expect(err).NotTo(HaveOccurred())
	body, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	Expect(err).NotTo(HaveOccurred())
	var calls float64
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "apiserver_admission_webhook_admission_duration_seconds_count{") ||
			!strings.Contains(line, `name="twinobjects.spillway.liqo.io"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		Expect(err).NotTo(HaveOccurred(), line)
		calls += v
	}
	Expect(sc.Err()).NotTo(HaveOccurred())
	return calls
}

var _ = Describe("what a consumer writes into its twin besides pods", func() {
	It("refuses a consumer's endpoints that name another namespace, and admits milan's own writes without calling the webhook", func(ctx context.Context) {
		before := twinObjectsWebhookCalls(ctx)
		refused := `endpoints[0].targetRef names namespace "kube-system"`

		By("rome's identity creating a slice whose endpoint is a pod of kube-system")
		Expect(tenantC.Create(ctx, twinSlice("elsewhere", "kube-system"))).To(MatchError(ContainSubstring(refused)))

		By("rome's identity moving an admitted slice's endpoint there")
		admitted := twinSlice("moved", twin)
		Expect(tenantC.Create(ctx, admitted)).To(Succeed())
		admitted.Endpoints[0].TargetRef.Namespace = "kube-system"
		Expect(tenantC.Update(ctx, admitted)).To(MatchError(ContainSubstring(refused)))
		Expect(twinObjectsWebhookCalls(ctx)).To(Equal(before+3), "each of the consumer's three writes was judged")
		got := &discoveryv1.EndpointSlice{}
		Expect(milanC.Get(ctx, client.ObjectKey{Namespace: twin, Name: "moved"}, got)).To(Succeed())
		Expect(got.Endpoints[0].TargetRef.Namespace).To(Equal(twin), "the refused update stored nothing")

		By("milan's admin writing the same slice, as its own controllers write into twins")
		Expect(milanC.Create(ctx, twinSlice("providers-own", "kube-system"))).To(Succeed())
		Expect(twinObjectsWebhookCalls(ctx)).To(Equal(before+3), "the provider's own write made no round trip")
	})
})
