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

package offloadedpod

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

const ns = "shop"

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	return s
}

// apiServerDefaults are what DefaultTolerationSeconds adds to every pod.
func apiServerDefaults() []corev1.Toleration {
	return []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(300))},
	}
}

func newPod(node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-" + node},
		Spec:   corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "web", Image: "nginx"}}, Tolerations: apiServerDefaults()},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
}

func newOffloading(annotations map[string]string) *offloadingv1alpha1.NamespaceOffloading {
	return &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: offloadingv1alpha1.RequiredName, Annotations: annotations}}
}

var nodes = []client.Object{
	&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "liqo-milan", Labels: map[string]string{"liqo.io/type": "virtual-node"}}},
	&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-worker-0", Labels: map[string]string{"type": "kwok"}}},
}

// reconciled runs one reconcile of pod with objs in the cluster and returns
// the pod's tolerations afterwards.
func reconciled(t *testing.T, pod *corev1.Pod, objs ...client.Object) []corev1.Toleration {
	g := NewWithT(t)
	c := fake.NewClientBuilder().WithScheme(scheme()).WithObjects(append(append(objs, nodes...), pod)...).Build()
	r := &OffloadedPodReconciler{Client: c}
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(pod)})
	g.Expect(err).NotTo(HaveOccurred())
	got := &corev1.Pod{}
	g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(pod), got)).To(Succeed())
	return got.Spec.Tolerations
}

func secondsOf(tols []corev1.Toleration, key string) []*int64 {
	var out []*int64
	for _, t := range tols {
		if t.Key == key {
			out = append(out, t.TolerationSeconds)
		}
	}
	return out
}

func TestAPodOnAVirtualNodeToleratesNotReadyForEverByDefault(t *testing.T) {
	g := NewWithT(t)
	tols := reconciled(t, newPod("liqo-milan"), newOffloading(nil))
	g.Expect(secondsOf(tols, corev1.TaintNodeNotReady)).To(Equal([]*int64{nil}))
	g.Expect(secondsOf(tols, corev1.TaintNodeUnreachable)).To(Equal([]*int64{nil}))
}

func TestTheAnnotationSetsTheDelayBeforeEviction(t *testing.T) {
	g := NewWithT(t)
	tols := reconciled(t, newPod("liqo-milan"), newOffloading(map[string]string{offloadingv1alpha1.NotReadyTolerationSecondsAnnotation: "45"}))
	g.Expect(secondsOf(tols, corev1.TaintNodeNotReady)).To(Equal([]*int64{ptr.To(int64(45))}))
	g.Expect(secondsOf(tols, corev1.TaintNodeUnreachable)).To(Equal([]*int64{ptr.To(int64(45))}))
}

func TestAnInvalidAnnotationFallsBackToNeverEvicting(t *testing.T) {
	g := NewWithT(t)
	tols := reconciled(t, newPod("liqo-milan"), newOffloading(map[string]string{offloadingv1alpha1.NotReadyTolerationSecondsAnnotation: "5m"}))
	g.Expect(secondsOf(tols, corev1.TaintNodeNotReady)).To(Equal([]*int64{nil}))
}

func TestPodsKubernetesEvictsAsUsualAreLeftAlone(t *testing.T) {
	for name, tc := range map[string]struct {
		pod  *corev1.Pod
		objs []client.Object
	}{
		"on a physical node of a LocalAndRemote namespace": {pod: newPod("rome-worker-0"), objs: []client.Object{newOffloading(nil)}},
		"on a virtual node, in a namespace not offloaded":  {pod: newPod("liqo-milan")},
		"on a node that is gone":                           {pod: newPod("liqo-naples"), objs: []client.Object{newOffloading(nil)}},
	} {
		t.Run(name, func(t *testing.T) {
			NewWithT(t).Expect(reconciled(t, tc.pod, tc.objs...)).To(Equal(apiServerDefaults()))
		})
	}
}
