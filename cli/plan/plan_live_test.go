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
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func node(name string, labels map[string]string) *corev1.Node {
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
}

func pod(name, nodeName string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "liqo-demo"},
		Spec: corev1.PodSpec{NodeName: nodeName}, Status: corev1.PodStatus{Phase: phase}}
}

func TestPlanListsRunningPodsTheNewPodStrategyDoesNotAllow(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "podOffloadingStrategy: LocalAndRemote", "podOffloadingStrategy: Local")
	live := fake.NewClientBuilder().WithScheme(scheme.Scheme).WithObjects(
		node("rome-worker", map[string]string{"kubernetes.io/hostname": "rome-worker"}),
		node("liqo-milan", map[string]string{"liqo.io/type": "virtual-node", "liqo.io/remote-cluster-id": milanID}),
		pod("nginx-local", "rome-worker", corev1.PodRunning),
		pod("nginx-remote", "liqo-milan", corev1.PodRunning),
		pod("job-done", "liqo-milan", corev1.PodSucceeded),
		pod("pending", "", corev1.PodPending),
	).Build()

	p := compute(t, base, head, Options{Live: &Live{Cluster: "rome", Reader: live}})
	g.Expect(p.Rejected).To(BeFalse())
	rome := changesOf(p, "rome")
	g.Expect(rome).To(HaveLen(2))
	g.Expect(rome[0].Kind).To(Equal(PodStrategyChange))
	g.Expect(rome[0].Message).To(HavePrefix("pod strategy LocalAndRemote → Local: new pods stay on local nodes (Local)"))
	g.Expect(rome[0].Message).To(HaveSuffix("1 running pod breaks the new placement"))
	g.Expect(rome[1].Kind).To(Equal(PlacementViolation))
	g.Expect(rome[1].Message).To(HavePrefix("pod nginx-remote runs on liqo-milan, which the new placement does not allow"))
	g.Expect(text(t, p)).To(ContainSubstring("  ! liqo-demo: pod nginx-remote runs on liqo-milan"))
}

func TestPlanSaysWhenRunningPodsWereNotChecked(t *testing.T) {
	g := NewWithT(t)
	base, head := copyFleet(t), copyFleet(t)
	edit(t, head, "rome/config/namespace-liqo-demo.yaml", "podOffloadingStrategy: LocalAndRemote", "podOffloadingStrategy: Remote")

	p := compute(t, base, head, Options{})
	g.Expect(changesOf(p, "rome")).To(ConsistOf(HaveField("Message", ContainSubstring("pass --kubeconfig (and --context) for rome"))))

	p = compute(t, base, head, Options{Live: &Live{Cluster: "milan"}})
	g.Expect(changesOf(p, "rome")).To(ConsistOf(HaveField("Message", ContainSubstring("--kubeconfig points at milan, not rome"))))
}
