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

package namespaceoffloading

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func raw(g Gomega, strategy offloadingv1alpha1.NamespaceMappingStrategy, pods offloadingv1alpha1.PodOffloadingStrategy) runtime.RawExtension {
	b, err := json.Marshal(&offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: "liqo-demo"},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: strategy, PodOffloadingStrategy: pods}})
	g.Expect(err).NotTo(HaveOccurred())
	return runtime.RawExtension{Raw: b}
}

func TestUpdatesAreJudgedByTheSharedPolicy(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	v := &Validator{Decoder: admission.NewDecoder(s)}
	update := func(oldM, newM offloadingv1alpha1.NamespaceMappingStrategy, oldP, newP offloadingv1alpha1.PodOffloadingStrategy) admission.Response {
		return v.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Operation: admissionv1.Update,
			OldObject: raw(g, oldM, oldP), Object: raw(g, newM, newP)}})
	}
	denied := update(offloadingv1alpha1.DefaultNameMappingStrategy, offloadingv1alpha1.EnforceSameNameMappingStrategy, "", "")
	g.Expect(denied.Allowed).To(BeFalse())
	g.Expect(denied.Result.Message).To(ContainSubstring("spec.namespaceMappingStrategy cannot change"))
	warned := update("", "", offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, offloadingv1alpha1.RemotePodOffloadingStrategy)
	g.Expect(warned.Allowed).To(BeTrue())
	g.Expect(warned.Warnings).To(ConsistOf(ContainSubstring("not evicted")))
}
