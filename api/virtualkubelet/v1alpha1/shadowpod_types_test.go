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
	"encoding/json"
	"reflect"
	"testing"

	kstatus "github.com/fluxcd/cli-utils/pkg/kstatus/status"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/spillway-dev/spillway/api/internal/crdtest"
	. "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

const crdFile = "virtualkubelet.liqo.io_shadowpods.yaml"

const sample = `apiVersion: virtualkubelet.liqo.io/v1alpha1
kind: ShadowPod
metadata: {name: web-6d4cf56db6-x7k2p, namespace: liqo-tenant-home}
spec:
  pod:
    containers:
    - name: web
      image: nginx:1.27
      ports:
      - {containerPort: 80}
      - {containerPort: 80, protocol: UDP}
      resources:
        limits: {cpu: 500m, memory: 128Mi, nvidia.com/gpu: "1"}
      env:
      - {name: MODE, value: remote}
    tolerations:
    - {key: virtual-node.liqo.io/not-allowed, operator: Exists, effect: NoExecute}
    restartPolicy: Always
`

var (
	_ conditions.Setter = &ShadowPod{}
	_ conditions.Getter = &ShadowPod{}
)

func load(g *WithT) (*crdtest.Admission, map[string]any) {
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	a, err := crdtest.NewAdmission(crd, "v1alpha1")
	g.Expect(err).NotTo(HaveOccurred())
	return a, crdtest.MustDecode(sample)
}

func TestCRDNamesScopeAndColumns(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crd.Name).To(Equal("shadowpods.virtualkubelet.liqo.io"))
	g.Expect(crd.Spec.Group).To(Equal(GroupVersion.Group))
	g.Expect(string(crd.Spec.Scope)).To(Equal("Namespaced"))
	g.Expect(crd.Spec.Names.ShortNames).To(Equal([]string{"shpod"}))
	v := crdtest.Version(crd, GroupVersion.Version)
	g.Expect(v).NotTo(BeNil())
	g.Expect(v.Subresources).NotTo(BeNil())
	g.Expect(v.Subresources.Status).NotTo(BeNil())
	g.Expect(crdtest.Columns(v)).To(Equal([]crdtest.Column{
		{Name: "Phase", JSONPath: ".status.phase"},
		{Name: "Age", JSONPath: ".metadata.creationTimestamp"},
	}))
}

// The pod is described by the real PodSpec schema, not an opaque blob, and
// the CRD stays small enough for client-side "kubectl apply", whose
// last-applied annotation is capped at 256 KiB.
func TestPodSchemaIsRealAndSmallEnough(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	spec := crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema.Properties["spec"]
	g.Expect(spec.Required).To(Equal([]string{"pod"}))
	g.Expect(spec.Properties).NotTo(HaveKey("suspend"))
	pod := spec.Properties["pod"]
	g.Expect(pod.XPreserveUnknownFields).To(BeNil())
	g.Expect(pod.Required).To(ContainElement("containers"))
	g.Expect(pod.Properties).To(HaveKey("tolerations"))
	g.Expect(pod.Properties).To(HaveKey("affinity"))

	data, err := json.Marshal(crd)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(len(data)).To(BeNumerically("<", 256*1024))
}

func TestCRDIsInSyncWithGoTypes(t *testing.T) {
	g := NewWithT(t)
	crd, err := crdtest.Load(crdFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(crdtest.MissingFields(reflect.TypeOf(ShadowPod{}), crdtest.Version(crd, "v1alpha1").Schema.OpenAPIV3Schema)).To(BeEmpty())
}

func TestSampleIsAcceptedAndDefaulted(t *testing.T) {
	g := NewWithT(t)
	a, obj := load(g)
	g.Expect(a.Validate(obj, nil)).To(BeEmpty())
	g.Expect(obj).To(HaveKeyWithValue("status", HaveKeyWithValue("observedGeneration", BeNumerically("==", -1))))

	sp := &ShadowPod{}
	g.Expect(yaml.UnmarshalStrict([]byte(sample), sp)).To(Succeed())
	g.Expect(sp.Spec.Pod.Containers).To(HaveLen(1))
	g.Expect(sp.Spec.Pod.Tolerations[0].Effect).To(Equal(corev1.TaintEffectNoExecute))
}

// The provider writes no status while the pod is merely starting
// (controllers/shadowpod, firstReportCanWait): the ShadowPod as served then
// carries only the schema's default, which kstatus, and so a Flux health
// check, reads as InProgress, not Current.
func TestAShadowPodWithoutStatusIsInProgress(t *testing.T) {
	g := NewWithT(t)
	a, obj := load(g)
	a.Default(obj)
	obj["metadata"].(map[string]any)["generation"] = int64(1)
	res, err := kstatus.Compute(&unstructured.Unstructured{Object: obj})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Status).To(Equal(kstatus.InProgressStatus))
}

func TestAdmission(t *testing.T) {
	t.Run("missing pod", func(t *testing.T) {
		g := NewWithT(t)
		a, obj := load(g)
		obj["spec"] = map[string]any{}
		g.Expect(a.Validate(obj, nil).ToAggregate()).To(MatchError(ContainSubstring("spec.pod: Required")))
	})
	t.Run("pod without containers", func(t *testing.T) {
		g := NewWithT(t)
		a, obj := load(g)
		obj["spec"] = map[string]any{"pod": map[string]any{"restartPolicy": "Never"}}
		g.Expect(a.Validate(obj, nil).ToAggregate()).To(MatchError(ContainSubstring("spec.pod.containers: Required")))
	})
	t.Run("duplicate port once protocol is defaulted", func(t *testing.T) {
		g := NewWithT(t)
		a, obj := load(g)
		container := obj["spec"].(map[string]any)["pod"].(map[string]any)["containers"].([]any)[0].(map[string]any)
		container["ports"] = []any{
			map[string]any{"containerPort": int64(80)},
			map[string]any{"containerPort": int64(80), "protocol": "TCP"},
		}
		g.Expect(a.Validate(obj, nil).ToAggregate()).To(MatchError(ContainSubstring("Duplicate value")))
	})
	t.Run("unknown pod field is pruned", func(t *testing.T) {
		g := NewWithT(t)
		a, obj := load(g)
		obj["spec"].(map[string]any)["pod"].(map[string]any)["notAPodField"] = true
		g.Expect(a.Validate(obj, nil)).To(BeEmpty())
		g.Expect(obj["spec"].(map[string]any)["pod"]).NotTo(HaveKey("notAPodField"))
	})
	t.Run("bad phase", func(t *testing.T) {
		g := NewWithT(t)
		a, obj := load(g)
		obj["status"] = map[string]any{"phase": "Running", "conditions": []any{
			map[string]any{"type": "Ready", "status": "Maybe", "reason": "X", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z"},
		}}
		g.Expect(a.Validate(obj, nil).ToAggregate()).To(MatchError(ContainSubstring("status.conditions[0].status")))
	})
}

func TestSchemeAndDeepCopy(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	g.Expect(AddToScheme(s)).To(Succeed())
	gvks, _, err := s.ObjectKinds(&ShadowPod{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(gvks).To(ConsistOf(GroupVersion.WithKind("ShadowPod")))
	g.Expect(s.Recognizes(GroupVersion.WithKind("ShadowPodList"))).To(BeTrue())

	sp := &ShadowPod{}
	g.Expect(yaml.UnmarshalStrict([]byte(sample), sp)).To(Succeed())
	cp := sp.DeepCopy()
	cp.Spec.Pod.Containers[0].Image = "changed"
	g.Expect(sp.Spec.Pod.Containers[0].Image).To(Equal("nginx:1.27"))

	conditions.MarkTrue(sp, ReadyCondition, PodCreatedReason, "created")
	g.Expect(conditions.IsReady(sp)).To(BeTrue())
}
