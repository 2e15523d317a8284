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

package twinobjects

import (
	"context"
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// claimValidator is milan with a default class standard, and rome's offer
// naming the class it offers ("" for none) and the external classes.
func claimValidator(offered string, external ...string) *Validator {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	offer := &sharingv1alpha1.ResourceOffer{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "rome"},
		Spec:   sharingv1alpha1.ResourceOfferSpec{ClusterID: "rome-id", StorageClassName: offered, ExternalStorageClasses: external},
		Status: sharingv1alpha1.ResourceOfferStatus{TenantNamespace: "liqo-tenant-rome"}}
	standard := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "standard",
		Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "rancher.io/local-path"}
	v := validator()
	v.Reader = fake.NewClientBuilder().WithScheme(s).WithObjects([]client.Object{offer, standard}...).Build()
	return v
}

func twinClaim(class string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data-db-0"},
		Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: ptr.To(class), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}}}
}

func TestAConsumersClaimMustHaveTheOfferedClass(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	v := claimValidator("fast")
	g.Expect(v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("fast"))).Allowed).To(BeTrue())
	resp := v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("standard")))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring(`this provider offers class "fast"`))

	withoutClass := "an offer without a class: the provider's default class"
	v = claimValidator("")
	g.Expect(v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("standard"))).Allowed).To(BeTrue(), withoutClass)
	g.Expect(v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("fast"))).Allowed).To(BeFalse(), withoutClass)
}

func TestAConsumerMayClaimTheExternalClassesItsOfferLists(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	v := claimValidator("fast", "remote-disk")
	g.Expect(v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("remote-disk"))).Allowed).To(BeTrue())
	g.Expect(v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("fast"))).Allowed).To(BeTrue(), "the liqo claims' class still")
	resp := v.Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("private")))
	g.Expect(resp.Allowed).To(BeFalse(), "a class of the provider's the offer does not list")
	g.Expect(resp.Result.Message).To(ContainSubstring(`classes ["remote-disk"] to claim directly (spec.externalStorageClasses)`))

	g.Expect(claimValidator("fast").Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("remote-disk"))).Allowed).To(BeFalse(),
		"an offer without spec.externalStorageClasses")
	g.Expect(claimValidator("", "remote-disk").Handle(ctx, request(rome, "PersistentVolumeClaim", twinClaim("remote-disk"))).Allowed).To(BeTrue(),
		"an offer naming no class for liqo claims")

	pvc := twinClaim("remote-disk")
	pvc.Spec.VolumeName = "pvc-of-another-tenant"
	g.Expect(v.Handle(ctx, request(rome, "PersistentVolumeClaim", pvc)).Allowed).To(BeFalse(), "an external class binds no existing volume either")
}

func TestAConsumersClaimMayNotBindAProvidersVolume(t *testing.T) {
	g := NewWithT(t)
	pvc := twinClaim("fast")
	pvc.Spec.VolumeName = "pvc-of-another-tenant"
	resp := claimValidator("fast").Handle(context.Background(), request(rome, "PersistentVolumeClaim", pvc))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring(`PersistentVolumeClaim shop/data-db-0 sets spec.volumeName "pvc-of-another-tenant"`))
	g.Expect(claimValidator("fast").Handle(context.Background(), request("system:admin", "PersistentVolumeClaim", pvc)).Allowed).To(BeTrue(),
		"the provider's own users are not judged")
}

func TestAConsumerMayGrowItsBoundClaim(t *testing.T) {
	g := NewWithT(t)
	old := twinClaim("fast")
	old.Spec.VolumeName = "pvc-123"
	grown := old.DeepCopy()
	grown.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
	req := request(rome, "PersistentVolumeClaim", grown)
	req.Operation = admissionv1.Update
	raw, _ := json.Marshal(old)
	req.OldObject = runtime.RawExtension{Raw: raw}
	g.Expect(claimValidator("fast").Handle(context.Background(), req).Allowed).To(BeTrue(), "spec.volumeName was set by the provider's binding")

	pending := old.DeepCopy()
	pending.Spec.VolumeName = ""
	raw, _ = json.Marshal(pending)
	req.OldObject = runtime.RawExtension{Raw: raw}
	g.Expect(claimValidator("fast").Handle(context.Background(), req).Allowed).To(BeFalse(), "the consumer may not set it itself")
}
