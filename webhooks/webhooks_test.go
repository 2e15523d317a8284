package webhooks

import (
	"testing"

	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

func TestConfigurationsCarryTheDocumentedFailurePolicies(t *testing.T) {
	g := NewWithT(t)
	m, v := Configurations(Options{Namespace: "liqo", ServiceName: "spillway-webhook"}, []byte("CA"))
	pod := m.Webhooks[0]
	g.Expect(*pod.FailurePolicy).To(Equal(admissionregistrationv1.Fail))
	g.Expect(pod.NamespaceSelector.MatchLabels).To(Equal(map[string]string{"liqo.io/scheduling-enabled": "true"}),
		"pods of namespaces that are not offloaded never call the webhook")
	g.Expect(pod.ClientConfig.Service.Name).To(Equal("spillway-webhook"))
	g.Expect(pod.ClientConfig.CABundle).To(Equal([]byte("CA")))
	byName := map[string]admissionregistrationv1.ValidatingWebhook{}
	for _, w := range v.Webhooks {
		byName[w.Name] = w
	}
	g.Expect(*byName["namespaceoffloading.spillway.liqo.io"].FailurePolicy).To(Equal(admissionregistrationv1.Ignore))
	g.Expect(*byName["shadowpod.spillway.liqo.io"].FailurePolicy).To(Equal(admissionregistrationv1.Fail))
	twins := byName["twinobjects.spillway.liqo.io"]
	g.Expect(*twins.FailurePolicy).To(Equal(admissionregistrationv1.Fail))
	g.Expect(twins.NamespaceSelector.MatchExpressions[0].Key).To(Equal("liqo.io/twin-namespace"), "twin namespaces only")
	var resources []string
	for _, r := range twins.Rules {
		resources = append(resources, r.Resources...)
	}
	g.Expect(resources).To(ConsistOf("services", "endpointslices", "ingresses"))
}

func TestOptionsHosts(t *testing.T) {
	g := NewWithT(t)
	hosts, err := Options{Namespace: "liqo", ServiceName: "spillway-webhook"}.Hosts()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(hosts).To(ContainElement("spillway-webhook.liqo.svc"))
	hosts, err = Options{URL: "https://127.0.0.1:18425"}.Hosts()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(hosts).To(Equal([]string{"127.0.0.1"}))
	_, err = Options{URL: "not a url"}.Hosts()
	g.Expect(err).To(MatchError(ContainSubstring("--webhook-url")))
}
