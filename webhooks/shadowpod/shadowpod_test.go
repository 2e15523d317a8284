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

package shadowpod

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	return s
}

func twin(name, consumer string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{sharingv1alpha1.TwinNamespaceLabel: consumer}}}
}

func shadowPod(ns, name, cpu string) *virtualkubeletv1alpha1.ShadowPod {
	return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: virtualkubeletv1alpha1.ShadowPodSpec{Pod: corev1.PodSpec{Containers: []corev1.Container{{Name: "c",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}}}}
}

func offer(cpu string) *sharingv1alpha1.ResourceOffer {
	return &sharingv1alpha1.ResourceOffer{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "rome"},
		Spec:   sharingv1alpha1.ResourceOfferSpec{ClusterID: "rome-id"},
		Status: sharingv1alpha1.ResourceOfferStatus{Offered: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}
}

func review(g Gomega, sp *virtualkubeletv1alpha1.ShadowPod, objs ...client.Object) admission.Response {
	v := &Validator{Reader: fake.NewClientBuilder().WithScheme(scheme()).WithObjects(objs...).Build(), Decoder: admission.NewDecoder(scheme()), Usage: usageOf(objs...)}
	raw, err := json.Marshal(sp)
	g.Expect(err).NotTo(HaveOccurred())
	return v.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Namespace: sp.Namespace, Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}}})
}

func TestAShadowPodWithinTheOfferIsAllowed(t *testing.T) {
	g := NewWithT(t)
	resp := review(g, shadowPod("a-rome", "web-2", "1"), twin("a-rome", "rome-id"), twin("b-rome", "rome-id"), offer("4"),
		shadowPod("a-rome", "web-1", "1"), shadowPod("b-rome", "db-1", "2"))
	g.Expect(resp.Allowed).To(BeTrue(), "1+2+1 = the 4 CPUs offered")
}

func TestAShadowPodBeyondTheOfferIsDeniedNamingTheOfferAndTheMissingAmount(t *testing.T) {
	g := NewWithT(t)
	resp := review(g, shadowPod("a-rome", "web-2", "1500m"), twin("a-rome", "rome-id"), twin("b-rome", "rome-id"), offer("4"),
		shadowPod("a-rome", "web-1", "1"), shadowPod("b-rome", "db-1", "2"),
		twin("a-naples", "naples-id"), shadowPod("a-naples", "other", "8"))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring("ResourceOffer liqo/rome"))
	g.Expect(resp.Result.Message).To(ContainSubstring("missing cpu 500m"))
}

func TestAShadowPodOutsideATwinOrWithoutAnOfferIsDenied(t *testing.T) {
	g := NewWithT(t)
	plain := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	g.Expect(review(g, shadowPod("default", "x", "1"), plain, offer("4")).Result.Message).To(ContainSubstring("not a twin namespace"))
	g.Expect(review(g, shadowPod("a-rome", "x", "1"), twin("a-rome", "rome-id")).Result.Message).To(ContainSubstring(`spec.clusterId "rome-id"`))
}
