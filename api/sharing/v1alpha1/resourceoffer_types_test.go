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

package v1alpha1_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/spillway-dev/spillway/api/internal/crdtest"
	. "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

const crdFile = "sharing.liqo.io_resourceoffers.yaml"

// seed is the manifest the lab applies; it must be accepted unchanged.
const seed = `apiVersion: sharing.liqo.io/v1alpha1
kind: ResourceOffer
metadata: {name: homelab-offer, namespace: liqo-system}
spec:
  clusterId: homelab-cluster-id
  resources:
    limits: {cpu: "4", memory: "16Gi", nvidia.com/gpu: "1"}
`

var (
	_ conditions.Setter = &ResourceOffer{}
	_ conditions.Getter = &ResourceOffer{}
)

func admission(g *WithT) *crdtest.Admission {
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	a, err := crdtest.NewAdmission(crd, "v1alpha1")
	g.Expect(err).NotTo(HaveOccurred())
	return a
}

func TestCRDNamesAndScope(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crd.Name).To(Equal("resourceoffers.sharing.liqo.io"))
	g.Expect(crd.Spec.Group).To(Equal(GroupVersion.Group))
	g.Expect(string(crd.Spec.Scope)).To(Equal("Namespaced"))
	g.Expect(crd.Spec.Names.Kind).To(Equal("ResourceOffer"))
	v := crdtest.Version(crd, GroupVersion.Version)
	g.Expect(v).NotTo(BeNil())
	g.Expect(v.Subresources).NotTo(BeNil())
	g.Expect(v.Subresources.Status).NotTo(BeNil())
}

func TestPrinterColumns(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crdtest.Columns(crdtest.Version(crd, "v1alpha1"))).To(Equal([]crdtest.Column{
		{Name: "Cluster ID", JSONPath: ".spec.clusterId"},
		{Name: "CPU", JSONPath: ".status.offeredDisplay.cpu"},
		{Name: "Memory", JSONPath: ".status.offeredDisplay.memory"},
		{Name: "Ready", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
		{Name: "Age", JSONPath: ".metadata.creationTimestamp"},
	}))
}

func TestCRDIsInSyncWithGoTypes(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crdtest.MissingFields(reflect.TypeOf(ResourceOffer{}), crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema)).To(BeEmpty())
}

func TestCELRulesArePresent(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	rules := crdtest.Rules(crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema)
	g.Expect(rules).To(HaveKey("spec"))
	g.Expect(rules["spec"][0].Rule).To(And(ContainSubstring("self.resources.limits"), ContainSubstring("self.sharingPercentage")))
	g.Expect(rules["spec"][0].Message).To(ContainSubstring("mutually exclusive"))
	g.Expect(rules).To(HaveKey("spec.clusterId"))
	g.Expect(rules["spec.clusterId"][0].Rule).To(Equal("self == oldSelf"))
}

func TestSeedIsAcceptedAndDefaulted(t *testing.T) {
	g := NewWithT(t)
	obj := crdtest.MustDecode(seed)
	g.Expect(admission(g).Validate(obj, nil)).To(BeEmpty())
	g.Expect(obj).To(HaveKeyWithValue("status", HaveKeyWithValue("observedGeneration", BeNumerically("==", -1))))
	// Pruning must keep every field of the seed: nothing in it is unknown.
	g.Expect(obj).To(HaveKeyWithValue("spec", HaveKeyWithValue("resources",
		HaveKeyWithValue("limits", HaveKeyWithValue("nvidia.com/gpu", "1")))))
	// No percentage may be defaulted next to fixed limits.
	g.Expect(obj["spec"]).NotTo(HaveKey("sharingPercentage"))
}

// The seed decodes into the Go type with no unknown field and the right
// quantities.
func TestSeedDecodesIntoGoType(t *testing.T) {
	g := NewWithT(t)
	ro := &ResourceOffer{}
	g.Expect(yaml.UnmarshalStrict([]byte(seed), ro)).To(Succeed())

	g.Expect(ro.Name).To(Equal("homelab-offer"))
	g.Expect(ro.Namespace).To(Equal("liqo-system"))
	g.Expect(ro.Spec.ClusterID).To(Equal("homelab-cluster-id"))
	g.Expect(ro.Spec.Resources).NotTo(BeNil())
	limits := ro.Spec.Resources.Limits
	g.Expect(limits).To(HaveLen(3))
	g.Expect(limits.Cpu().Equal(resource.MustParse("4"))).To(BeTrue(), limits.Cpu().String())
	g.Expect(limits.Memory().Equal(resource.MustParse("16Gi"))).To(BeTrue(), limits.Memory().String())
	g.Expect(limits.Memory().Value()).To(Equal(int64(16) << 30))
	gpu := limits[corev1.ResourceName("nvidia.com/gpu")]
	g.Expect(gpu.Value()).To(Equal(int64(1)))
	g.Expect(ro.HasFixedLimits()).To(BeTrue())
	g.Expect(ro.EffectiveSharingPercentage()).To(BeZero())
}

func TestAdmission(t *testing.T) {
	head := "apiVersion: sharing.liqo.io/v1alpha1\nkind: ResourceOffer\nmetadata: {name: o, namespace: liqo}\n"
	cases := []struct {
		name    string
		spec    string
		wantErr string
	}{
		{name: "percentage only", spec: "spec: {clusterId: c, sharingPercentage: 50}"},
		{name: "nothing but cluster ID", spec: "spec: {clusterId: c}"},
		{name: "labels", spec: "spec: {clusterId: c, clusterName: home, labels: {topology.liqo.io/region: eu-west}}"},
		{name: "empty limits and percentage", spec: "spec: {clusterId: c, resources: {limits: {}}, sharingPercentage: 10}"},
		{name: "limits and percentage", spec: "spec: {clusterId: c, resources: {limits: {cpu: \"1\"}}, sharingPercentage: 10}", wantErr: "spec.resources.limits and spec.sharingPercentage are mutually exclusive"},
		{name: "percentage zero", spec: "spec: {clusterId: c, sharingPercentage: 0}", wantErr: "spec.sharingPercentage"},
		{name: "percentage above 100", spec: "spec: {clusterId: c, sharingPercentage: 101}", wantErr: "spec.sharingPercentage"},
		{name: "missing cluster ID", spec: "spec: {sharingPercentage: 10}", wantErr: "spec.clusterId: Required"},
		{name: "empty cluster ID", spec: "spec: {clusterId: \"\"}", wantErr: "spec.clusterId"},
		{name: "bad quantity", spec: "spec: {clusterId: c, resources: {limits: {cpu: lots}}}", wantErr: "spec.resources.limits.cpu"},
		{name: "a broker's percentage", spec: "spec: {clusterId: c, broker: true, sharingPercentage: 100}"},
		{name: "a broker with fixed limits", spec: "spec: {clusterId: c, broker: true, resources: {limits: {cpu: \"1\"}}}", wantErr: "spec.broker and spec.resources.limits are mutually exclusive"},
		{name: "fixed limits, broker off", spec: "spec: {clusterId: c, broker: false, resources: {limits: {cpu: \"1\"}}}"},
		{name: "a broker exposing label keys", spec: "spec: {clusterId: c, broker: true, exposedLabelKeys: [topology.kubernetes.io/region, zone, example.com/rack_1.a]}"},
		{name: "exposed label keys without broker", spec: "spec: {clusterId: c, exposedLabelKeys: [topology.kubernetes.io/zone]}", wantErr: "spec.exposedLabelKeys needs spec.broker: true"},
		{name: "exposed label keys, broker off", spec: "spec: {clusterId: c, broker: false, exposedLabelKeys: [zone]}", wantErr: "spec.exposedLabelKeys needs spec.broker: true"},
		{name: "no exposed label keys, broker off", spec: "spec: {clusterId: c, exposedLabelKeys: []}"},
		{name: "an exposed key that is not a label key", spec: "spec: {clusterId: c, broker: true, exposedLabelKeys: [\"bad key\"]}", wantErr: "spec.exposedLabelKeys[0]"},
		{name: "an exposed key with an uppercase prefix", spec: "spec: {clusterId: c, broker: true, exposedLabelKeys: [Example.com/zone]}", wantErr: "spec.exposedLabelKeys[0]"},
		{name: "an exposed key whose name is too long", spec: "spec: {clusterId: c, broker: true, exposedLabelKeys: [example.com/" + strings.Repeat("a", 64) + "]}", wantErr: "at most 63 characters"},
		{name: "an exposed key twice", spec: "spec: {clusterId: c, broker: true, exposedLabelKeys: [zone, zone]}", wantErr: "spec.exposedLabelKeys[1]: Duplicate"},
		{name: "external storage classes", spec: "spec: {clusterId: c, externalStorageClasses: [remote-disk, archive.example.com]}"},
		{name: "an external class that is not a class name", spec: "spec: {clusterId: c, externalStorageClasses: [Remote_Disk]}", wantErr: "spec.externalStorageClasses[0]"},
		{name: "an external class twice", spec: "spec: {clusterId: c, externalStorageClasses: [remote-disk, remote-disk]}", wantErr: "spec.externalStorageClasses[1]: Duplicate"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			errs := admission(g).Validate(crdtest.MustDecode(head+tc.spec), nil)
			if tc.wantErr == "" {
				g.Expect(errs).To(BeEmpty())
				return
			}
			g.Expect(errs.ToAggregate()).To(MatchError(ContainSubstring(tc.wantErr)))
		})
	}
}

// Every key a virtual node sets itself, and the brokered label, is refused
// in spec.exposedLabelKeys: the CRD's rule spells the list the Go code builds.
func TestExposedLabelKeysRefuseReservedKeys(t *testing.T) {
	head := "apiVersion: sharing.liqo.io/v1alpha1\nkind: ResourceOffer\nmetadata: {name: o, namespace: liqo}\n"
	for _, key := range virtualkubeletv1alpha1.ReservedLabelKeys() {
		t.Run(key, func(t *testing.T) {
			g := NewWithT(t)
			errs := admission(g).Validate(crdtest.MustDecode(head+"spec: {clusterId: c, broker: true, exposedLabelKeys: [zone, \""+key+"\"]}"), nil)
			g.Expect(errs.ToAggregate()).To(MatchError(And(ContainSubstring("spec.exposedLabelKeys[1]"), ContainSubstring("set by the virtual node itself"))))
		})
	}
}

func TestClusterIDIsImmutable(t *testing.T) {
	g := NewWithT(t)
	a := admission(g)
	old := crdtest.MustDecode(seed)
	changed := crdtest.MustDecode(seed)
	changed["spec"].(map[string]any)["clusterId"] = "someone-else"
	g.Expect(a.Validate(changed, old).ToAggregate()).To(MatchError(ContainSubstring("spec.clusterId is immutable")))

	old = crdtest.MustDecode(seed)
	resized := crdtest.MustDecode(seed)
	resized["spec"].(map[string]any)["resources"] = map[string]any{"limits": map[string]any{"cpu": "8"}}
	g.Expect(a.Validate(resized, old)).To(BeEmpty())
}

func TestEffectiveSharingPercentage(t *testing.T) {
	g := NewWithT(t)
	ro := &ResourceOffer{}
	g.Expect(ro.HasFixedLimits()).To(BeFalse())
	g.Expect(ro.EffectiveSharingPercentage()).To(Equal(DefaultSharingPercentage))
	g.Expect(DefaultSharingPercentage).To(Equal(int32(90)))

	ro.Spec.SharingPercentage = ptr.To[int32](25)
	g.Expect(ro.EffectiveSharingPercentage()).To(Equal(int32(25)))

	ro.Spec.Resources = &OfferedResources{Limits: corev1.ResourceList{}}
	g.Expect(ro.HasFixedLimits()).To(BeFalse(), "empty limits are not a fixed offer")
	ro.Spec.SharingPercentage = nil
	ro.Spec.Resources.Limits[corev1.ResourceCPU] = resource.MustParse("2")
	g.Expect(ro.EffectiveSharingPercentage()).To(BeZero())
}

func TestSchemeAndDeepCopy(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	g.Expect(AddToScheme(s)).To(Succeed())
	gvks, _, err := s.ObjectKinds(&ResourceOffer{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(gvks).To(ConsistOf(GroupVersion.WithKind("ResourceOffer")))
	g.Expect(s.Recognizes(GroupVersion.WithKind("ResourceOfferList"))).To(BeTrue())

	orig := &ResourceOffer{}
	g.Expect(yaml.UnmarshalStrict([]byte(seed), orig)).To(Succeed())
	orig.Spec.Labels = map[string]string{TopologyRegionLabel: "eu"}
	cp := orig.DeepCopy()
	cp.Spec.Resources.Limits[corev1.ResourceCPU] = resource.MustParse("99")
	cp.Spec.Labels[TopologyRegionLabel] = "us"
	g.Expect(orig.Spec.Resources.Limits.Cpu().String()).To(Equal("4"))
	g.Expect(orig.Spec.Labels[TopologyRegionLabel]).To(Equal("eu"))
}
