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

package plan

import (
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// boundClaim is a claim of liqo-demo bound to a volume whose twin is ref
// ("" for a volume of another provisioner).
func boundClaim(name, ref string) []client.Object {
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv-" + name, Annotations: map[string]string{
		policies.ProvisionedByAnnotation: sharingv1alpha1.VirtualStorageProvisioner, sharingv1alpha1.TwinClaimAnnotation: ref}}}
	if ref == "" {
		pv.Annotations = map[string]string{policies.ProvisionedByAnnotation: "rancher.io/local-path"}
	}
	return []client.Object{pv, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "liqo-demo"},
		Spec: corev1.PersistentVolumeClaimSpec{VolumeName: pv.Name}}}
}

func TestPlanRefusesAnUnoffloadThatDeletesAClaimsRemoteData(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	write(t, head, "rome/config/kustomization.yaml", `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- foreigncluster-milan.yaml
- externalsecret-milan.yaml
`)
	var objs []client.Object
	objs = append(objs, boundClaim("data-db-1", milanID+":liqo-demo/data-db-1")...)
	objs = append(objs, boundClaim("data-db-0", "liqo-storage/pvc-0")...) // on rome: kept
	objs = append(objs, boundClaim("cache", "")...)                       // another class
	external := boundClaim("disk", milanID+":liqo-demo/disk")             // reflected: milan's class remote-disk
	external[1].(*corev1.PersistentVolumeClaim).Spec.StorageClassName = ptr.To("remote-disk")
	objs = append(objs, external...)
	objs = append(objs, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "pending", Namespace: "liqo-demo"}})
	live := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(objs...).Build()

	p := compute(t, base, head, Options{Live: &Live{Cluster: "rome", Reader: live}})
	g.Expect(p.Rejected).To(BeTrue())
	var stranded []Change
	for _, c := range changesOf(p, "rome") {
		if c.Kind == StrandedClaim {
			stranded = append(stranded, c)
		}
	}
	g.Expect(stranded).To(HaveLen(2))
	g.Expect(stranded[0].Message).To(HavePrefix("claim data-db-1 keeps its data on milan (twin claim liqo-demo/data-db-1)"))
	g.Expect(stranded[1].Message).To(HavePrefix("claim disk keeps its data on milan (twin claim liqo-demo/disk)"), "an externally managed claim reflected there")

	p = compute(t, base, head, Options{})
	g.Expect(p.Rejected).To(BeFalse(), "without a live view of rome the claims are not checked")
}
