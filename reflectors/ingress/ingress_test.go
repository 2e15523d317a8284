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
