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

package pod

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	return s
}

func south() *corev1.NodeSelector {
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.liqo.io/region", Operator: corev1.NodeSelectorOpIn, Values: []string{"south"}}}}}}
}

// admit runs the webhook on pod in namespace liqo-demo and returns the pod as
// the API server would store it.
func admit(g Gomega, pod *corev1.Pod, objs ...client.Object) (*corev1.Pod, admission.Response) {
	raw, err := json.Marshal(pod)
	g.Expect(err).NotTo(HaveOccurred())
	resp := admitRaw(g, raw, objs...)
	out := pod.DeepCopy()
	if len(resp.Patch) > 0 {
		// Into an empty pod: the stored pod is what the patched JSON says.
		out = &corev1.Pod{}
		patched := applyPatches(g, raw, resp)
		g.Expect(json.Unmarshal(patched, out)).To(Succeed())
	}
	return out, resp
}

// admitRaw runs the webhook on the pod JSON raw in namespace liqo-demo and
// returns its answer as the webhook server sends it.
func admitRaw(g Gomega, raw []byte, objs ...client.Object) admission.Response {
	m := &Mutator{Reader: fake.NewClientBuilder().WithScheme(scheme()).WithObjects(objs...).Build()}
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Namespace: "liqo-demo", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw}}}
	resp := m.Handle(context.Background(), req)
	// As the webhook server does before answering: what the API server
	// receives is resp.Patch, whichever way the handler built it.
	g.Expect(resp.Complete(req)).To(Succeed())
	if len(resp.Patch) > 0 {
		g.Expect(resp.PatchType).To(HaveValue(Equal(admissionv1.PatchTypeJSONPatch)))
	}
	return resp
}

func node(name string, labels map[string]string, virtual bool) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for k, v := range labels {
		n.Labels[k] = v
	}
	if virtual {
		n.Labels["liqo.io/type"] = "virtual-node"
	}
	return n
}

func schedulable(g Gomega, pod *corev1.Pod, n *corev1.Node) bool {
	ok, err := nodeaffinity.GetRequiredNodeAffinity(pod).Match(n)
	g.Expect(err).NotTo(HaveOccurred())
	tolerated := true
	for _, taint := range n.Spec.Taints {
		tolerated = tolerated && hasToleration(pod.Spec.Tolerations, corev1.Toleration{Key: taint.Key, Effect: taint.Effect, Operator: corev1.TolerationOpExists})
	}
	return ok && tolerated
}

func offloading(strategy offloadingv1alpha1.PodOffloadingStrategy, sel *corev1.NodeSelector) *offloadingv1alpha1.NamespaceOffloading {
	return &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: "liqo-demo"},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{PodOffloadingStrategy: strategy, ClusterSelector: sel}}
}

func TestRemoteWithSelectorPlacesPodsOnTheSelectedVirtualNodesOnly(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "liqo-demo"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	got, _ := admit(g, pod, offloading(offloadingv1alpha1.RemotePodOffloadingStrategy, south()))
	naples := node("liqo-naples", map[string]string{"topology.liqo.io/region": "south"}, true)
	naples.Spec.Taints = []corev1.Taint{{Key: offloadingv1alpha1.VirtualNodeTaintKey, Value: "true", Effect: corev1.TaintEffectNoExecute}}
	florence := node("liqo-florence", map[string]string{"topology.liqo.io/region": "center"}, true)
	local := node("venice-worker-0", map[string]string{"topology.liqo.io/region": "south"}, false)
	g.Expect(schedulable(g, got, naples)).To(BeTrue())
	g.Expect(schedulable(g, got, florence)).To(BeFalse())
	g.Expect(schedulable(g, got, local)).To(BeFalse(), "Remote keeps pods off physical nodes")
}

func TestLocalAndRemoteAllowsPhysicalOrSelectedVirtualNodes(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	got, _ := admit(g, pod, offloading(offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, south()))
	g.Expect(got.Spec.Tolerations).To(ContainElement(policies.VirtualNodeToleration()))
	g.Expect(schedulable(g, got, node("venice-worker-0", nil, false))).To(BeTrue())
	g.Expect(schedulable(g, got, node("liqo-naples", map[string]string{"topology.liqo.io/region": "south"}, true))).To(BeTrue())
	g.Expect(schedulable(g, got, node("liqo-florence", map[string]string{"topology.liqo.io/region": "center"}, true))).To(BeFalse())
}

func TestLocalKeepsPodsOnPhysicalNodesWithoutToleration(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	got, _ := admit(g, pod, offloading(offloadingv1alpha1.LocalPodOffloadingStrategy, nil))
	g.Expect(got.Spec.Tolerations).To(BeEmpty())
	g.Expect(schedulable(g, got, node("liqo-naples", nil, true))).To(BeFalse())
	g.Expect(schedulable(g, got, node("venice-worker-0", nil, false))).To(BeTrue())
}

func TestThePodsOwnAffinityStillHolds(t *testing.T) {
	g := NewWithT(t)
	ssd := corev1.NodeSelectorRequirement{Key: "disk", Operator: corev1.NodeSelectorOpIn, Values: []string{"ssd"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{ssd}}}}}}}}
	got, _ := admit(g, pod, offloading(offloadingv1alpha1.RemotePodOffloadingStrategy, nil))
	g.Expect(schedulable(g, got, node("liqo-naples", map[string]string{"disk": "ssd"}, true))).To(BeTrue())
	g.Expect(schedulable(g, got, node("liqo-milan", map[string]string{"disk": "hdd"}, true))).To(BeFalse())
}

func TestPodsOfNamespacesNotOffloadedAreLeftAlone(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	_, resp := admit(g, pod, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liqo-demo"}})
	g.Expect(resp.Allowed).To(BeTrue())
	g.Expect(resp.Patch).To(BeEmpty())
}

func TestPodsWaitForTheNamespaceOffloadingOfALabelledNamespace(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liqo-demo", Labels: map[string]string{"liqo.io/scheduling-enabled": "true"}}}
	_, resp := admit(g, pod, labelled)
	g.Expect(resp.Allowed).To(BeFalse(), "admitted now, the pod would never get its placement")
	g.Expect(resp.Result.Message).To(ContainSubstring(`no NamespaceOffloading named "offloading" yet`))
}

// TestALabelTheCacheDoesNotShowYetIsReadFromTheAPIServer: the API server
// sent the pod because it sees the namespace labelled; the manager's cache
// lagging the label must not admit the pod without placement for good.
func TestALabelTheCacheDoesNotShowYetIsReadFromTheAPIServer(t *testing.T) {
	g := NewWithT(t)
	stale := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liqo-demo"}}
	labelled := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "liqo-demo", Labels: map[string]string{"liqo.io/scheduling-enabled": "true"}}}
	m := &Mutator{Reader: fake.NewClientBuilder().WithScheme(scheme()).WithObjects(stale).Build(),
		LiveReader: fake.NewClientBuilder().WithScheme(scheme()).WithObjects(labelled).Build()}
	resp := m.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Namespace: "liqo-demo", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(`{"spec":{"containers":[{"name":"c"}]}}`)}}})
	g.Expect(resp.Allowed).To(BeFalse(), "admitted now, the pod would never get its placement")
	g.Expect(resp.Result.Message).To(ContainSubstring(`no NamespaceOffloading named "offloading" yet`))

	m.LiveReader = fake.NewClientBuilder().WithScheme(scheme()).WithObjects(stale).Build()
	resp = m.Handle(context.Background(), admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Namespace: "liqo-demo", Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: []byte(`{"spec":{"containers":[{"name":"c"}]}}`)}}})
	g.Expect(resp.Allowed).To(BeTrue(), "the label is gone on the API server too: the pod stays here")
}

func TestAPodAlreadyPlacedIsNotPatchedAgain(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	no := offloading(offloadingv1alpha1.RemotePodOffloadingStrategy, south())
	once, _ := admit(g, pod, no)
	_, resp := admit(g, once, no)
	g.Expect(resp.Patch).To(BeEmpty(), "a reinvoked webhook changes nothing")
}

func applyPatches(g Gomega, raw []byte, resp admission.Response) []byte {
	patch, err := jsonpatch.DecodePatch(resp.Patch)
	g.Expect(err).NotTo(HaveOccurred())
	out, err := patch.Apply(raw)
	g.Expect(err).NotTo(HaveOccurred())
	return out
}

func TestPodsOfANamespaceBeingUnoffloadedStayLocal(t *testing.T) {
	g := NewWithT(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	no := offloading(offloadingv1alpha1.RemotePodOffloadingStrategy, nil)
	no.Finalizers = []string{"offloading.liqo.io/finalizer"}
	no.DeletionTimestamp = &metav1.Time{Time: metav1.Now().Time}

	got, resp := admit(g, pod, no)

	g.Expect(resp.Allowed).To(BeTrue())
	g.Expect(resp.Patch).To(BeEmpty(), "a replacement of an evicted pod must not be sent back to the provider")
	g.Expect(schedulable(g, got, node("rome-worker-0", nil, false))).To(BeTrue())
}

// A pod that can only land on a virtual node gets its namespace's NotReady
// policy at admission, replacing the 300 s tolerations the API server's
// DefaultTolerationSeconds plugin added before the webhook ran, so the
// offloaded-pod controller has nothing to patch once it is bound. One that
// may land on a physical node keeps Kubernetes' tolerations until binding
// says where it runs.
func TestPodsOnlyForVirtualNodesGetTheNotReadyPolicyAtAdmission(t *testing.T) {
	defaults := []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
	}
	seconds := func(ts []corev1.Toleration) map[string]*int64 {
		out := map[string]*int64{}
		for _, t := range ts {
			if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
				out[t.Key] = t.TolerationSeconds
			}
		}
		return out
	}
	for _, tc := range []struct {
		name       string
		strategy   offloadingv1alpha1.PodOffloadingStrategy
		annotation string
		want       *int64
	}{
		{name: "Remote, default policy: never evicted", strategy: offloadingv1alpha1.RemotePodOffloadingStrategy, want: nil},
		{name: "Remote, annotated 60 s", strategy: offloadingv1alpha1.RemotePodOffloadingStrategy, annotation: "60", want: ptr.To(int64(60))},
		{name: "LocalAndRemote: Kubernetes' 300 s until bound", strategy: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy, want: ptr.To(int64(300))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}, Tolerations: defaults}}
			no := offloading(tc.strategy, nil)
			if tc.annotation != "" {
				no.Annotations = map[string]string{offloadingv1alpha1.NotReadyTolerationSecondsAnnotation: tc.annotation}
			}
			got, _ := admit(g, pod, no)
			g.Expect(seconds(got.Spec.Tolerations)).To(Equal(map[string]*int64{corev1.TaintNodeNotReady: tc.want, corev1.TaintNodeUnreachable: tc.want}))
			// What the offloaded-pod controller computes once the pod is bound.
			p, _ := policies.NotReadyPolicyOf(no)
			_, changed := policies.WithNotReadyPolicy(got.Spec.Tolerations, p)
			g.Expect(changed).To(Equal(tc.strategy != offloadingv1alpha1.RemotePodOffloadingStrategy), "a patch after binding")
		})
	}
}

// TestFieldsThisClientDoesNotKnowSurvivePlacement: a newer API server may send
// pod fields this client's types lack; the answer patches the members
// placement sets and nothing else, so they are kept.
func TestFieldsThisClientDoesNotKnowSurvivePlacement(t *testing.T) {
	g := NewWithT(t)
	raw := []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"liqo-demo"},` +
		`"spec":{"containers":[{"name":"c","image":"nginx","futureContainerField":true}],"futureSpecField":{"a":1}},` +
		`"status":{"futureStatusField":"x"}}`)
	resp := admitRaw(g, raw, offloading(offloadingv1alpha1.RemotePodOffloadingStrategy, south()))
	g.Expect(resp.Allowed).To(BeTrue())
	g.Expect(resp.Patch).NotTo(BeEmpty(), "the pod is placed")

	var patched map[string]any
	g.Expect(json.Unmarshal(applyPatches(g, raw, resp), &patched)).To(Succeed())
	spec := patched["spec"].(map[string]any)
	g.Expect(spec).To(HaveKeyWithValue("futureSpecField", map[string]any{"a": float64(1)}))
	g.Expect(spec["containers"]).To(ContainElement(HaveKeyWithValue("futureContainerField", true)))
	g.Expect(patched["status"]).To(HaveKeyWithValue("futureStatusField", "x"))
	g.Expect(spec).To(HaveKey("tolerations"))
	g.Expect(spec).To(HaveKey("affinity"))
}

// TestARequestWithoutAPodIsRefusedWithItsReason: nothing to place is a bad
// request, not a pod allowed unplaced.
func TestARequestWithoutAPodIsRefusedWithItsReason(t *testing.T) {
	g := NewWithT(t)
	for raw, why := range map[string]string{"": "carries no pod", `{"spec":`: "decoding the pod"} {
		resp := admitRaw(g, []byte(raw))
		g.Expect(resp.Allowed).To(BeFalse(), raw)
		g.Expect(resp.Result.Code).To(BeEquivalentTo(http.StatusBadRequest), raw)
		g.Expect(resp.Result.Message).To(ContainSubstring(why), raw)
	}
}
