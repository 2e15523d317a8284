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

package virtualnode

import (
	"reflect"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	toolscache "k8s.io/client-go/tools/cache"
)

// boundPod is a pod as the scheduler left it on the virtual node, decoded
// afresh each call as an informer decodes each version.
func boundPod(opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "web-0", UID: "uid-1", Generation: 1, ResourceVersion: "10",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "kept"}, Finalizers: []string{"example.com/keep"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-1"}}},
		Spec: corev1.PodSpec{NodeName: "liqo-milan", Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}},
			Tolerations: []corev1.Toleration{{Key: "virtual-node.liqo.io/not-allowed", Operator: corev1.TolerationOpExists}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func running(p *corev1.Pod) {
	p.ResourceVersion = "11"
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.0.7"}
}

func sameBacking[T any](a, b []T) bool { return len(a) > 0 && len(b) > 0 && &a[0] == &b[0] }

func sameMap(a, b map[string]string) bool {
	return a != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func TestAStatusChangeSharesTheUnchangedPartsOfTheHeldVersion(t *testing.T) {
	g := NewWithT(t)
	prev, next := boundPod(), boundPod(running)
	shareUnchanged(prev, next)
	g.Expect(sameBacking(prev.Spec.Containers, next.Spec.Containers)).To(BeTrue(), "the spec is the held version's")
	g.Expect(sameBacking(prev.Spec.Tolerations, next.Spec.Tolerations)).To(BeTrue())
	g.Expect(sameMap(prev.Labels, next.Labels)).To(BeTrue(), "the labels are the held version's")
	g.Expect(sameMap(prev.Annotations, next.Annotations)).To(BeTrue())
	g.Expect(sameBacking(prev.Finalizers, next.Finalizers)).To(BeTrue())
	g.Expect(sameBacking(prev.OwnerReferences, next.OwnerReferences)).To(BeTrue())
	g.Expect(next.Status.Phase).To(Equal(corev1.PodRunning), "the new version keeps its own status")
	g.Expect(next.ResourceVersion).To(Equal("11"))
	g.Expect(prev.Status.Phase).To(Equal(corev1.PodPending), "the held version is not written")
}

func TestWhatChangedIsNotShared(t *testing.T) {
	uncounted := func(p *corev1.Pod) { p.Generation = 0 }
	for name, c := range map[string]struct{ prev, next []func(*corev1.Pod) }{
		"an image, generation counted": {next: []func(*corev1.Pod){func(p *corev1.Pod) { p.Generation = 2; p.Spec.Containers[0].Image = "nginx:1.28" }}},
		// A cluster that leaves generation at zero still changes specs.
		"an image, generation not counted": {prev: []func(*corev1.Pod){uncounted},
			next: []func(*corev1.Pod){uncounted, func(p *corev1.Pod) { p.Spec.Containers[0].Image = "nginx:1.28" }}},
		"a toleration added, generation not counted": {prev: []func(*corev1.Pod){uncounted},
			next: []func(*corev1.Pod){uncounted, func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: "k"}) }}},
		// Binding sets the node without counting a generation.
		"the binding": {prev: []func(*corev1.Pod){func(p *corev1.Pod) { p.Spec.NodeName = "" }}},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			prev, next := boundPod(c.prev...), boundPod(c.next...)
			want := next.Spec.DeepCopy()
			shareUnchanged(prev, next)
			g.Expect(next.Spec).To(Equal(*want), "the new version keeps its own spec")
			g.Expect(sameBacking(prev.Spec.Containers, next.Spec.Containers)).To(BeFalse())
		})
	}
	t.Run("labels and annotations", func(t *testing.T) {
		g := NewWithT(t)
		prev := boundPod()
		next := boundPod(func(p *corev1.Pod) {
			p.Labels = map[string]string{"app": "web", "tier": "front"}
			p.Annotations = map[string]string{"note": "changed"}
			p.Finalizers = nil
			p.OwnerReferences[0].Name = "web-2"
		})
		shareUnchanged(prev, next)
		g.Expect(next.Labels).To(HaveKeyWithValue("tier", "front"))
		g.Expect(next.Annotations).To(HaveKeyWithValue("note", "changed"))
		g.Expect(next.Finalizers).To(BeEmpty())
		g.Expect(next.OwnerReferences[0].Name).To(Equal("web-2"))
		g.Expect(sameBacking(prev.Spec.Containers, next.Spec.Containers)).To(BeTrue(), "the spec did not change")
	})
}

func TestAPodOfTheSameNameButAnotherUIDSharesNothing(t *testing.T) {
	g := NewWithT(t)
	prev, next := boundPod(), boundPod(func(p *corev1.Pod) { p.UID = "uid-2" })
	shareUnchanged(prev, next)
	g.Expect(sameBacking(prev.Spec.Containers, next.Spec.Containers)).To(BeFalse())
	g.Expect(sameMap(prev.Labels, next.Labels)).To(BeFalse())
}

func TestTheTransformSharesWithTheVersionTheStoreHolds(t *testing.T) {
	g := NewWithT(t)
	store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
	v := &PodVersions{}

	// Before Hold, versions are only stripped of managed fields.
	first := boundPod(func(p *corev1.Pod) { p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kube-scheduler"}} })
	out, err := v.Transform(first)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.(*corev1.Pod).ManagedFields).To(BeNil())
	g.Expect(store.Add(out)).To(Succeed())

	v.Hold(store)
	second := boundPod(running, func(p *corev1.Pod) { p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "spillway"}} })
	out, err = v.Transform(second)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out.(*corev1.Pod).ManagedFields).To(BeNil())
	g.Expect(sameBacking(first.Spec.Containers, out.(*corev1.Pod).Spec.Containers)).To(BeTrue(), "the held version's spec")

	other := boundPod(running, func(p *corev1.Pod) { p.Name = "web-1" })
	out, err = v.Transform(other)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sameBacking(first.Spec.Containers, out.(*corev1.Pod).Spec.Containers)).To(BeFalse(), "another pod's spec is its own")

	tombstone := toolscache.DeletedFinalStateUnknown{Key: "apps/web-0", Obj: first}
	out, err = v.Transform(tombstone)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(out).To(Equal(tombstone))
}
