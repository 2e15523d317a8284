package ingress

import (
	"testing"

	. "github.com/onsi/gomega"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
)

func TestTranslateClearsTheIngressClass(t *testing.T) {
	g := NewWithT(t)
	local := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "liqo-demo"},
		Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("nginx"), Rules: []networkingv1.IngressRule{{Host: "web.example"}}}}
	got := Translate(local, "liqo-demo-rome", reflectiontest.Milan()).(*networkingv1.Ingress)
	g.Expect(got.Spec.IngressClassName).To(BeNil())
	g.Expect(got.Spec.Rules).To(Equal(local.Spec.Rules))
	g.Expect(local.Spec.IngressClassName).To(Equal(ptr.To("nginx")), "the local object is not touched")
}

func TestTranslateSkipsAnIngressWithASnippet(t *testing.T) {
	g := NewWithT(t)
	local := &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "liqo-demo",
		Annotations: map[string]string{"nginx.ingress.kubernetes.io/configuration-snippet": "more_set_headers x;"}}}
	g.Expect(Translate(local, "liqo-demo-rome", reflectiontest.Milan())).To(BeNil())
}
