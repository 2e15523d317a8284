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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// Every test offloads from rome into its twin of "shop".
const (
	twin     = "shop-rome"
	romeID   = "rome-id"
	spUID    = "0f6a3c2e-shadowpod"
	otherUID = "9b1d7e44-earlier"
)

// newTwin is rome's twin namespace, as the twin-namespace controller makes it.
func newTwin() *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: twin, Labels: map[string]string{
		sharingv1alpha1.TwinNamespaceLabel: romeID, sharingv1alpha1.RemoteClusterIDLabel: romeID}}}
}

type shadowPodOpt func(*virtualkubeletv1alpha1.ShadowPod)

// newShadowPod is a never-reconciled ShadowPod in the twin running nginx
// with restartPolicy Always; options change one thing.
func newShadowPod(name string, opts ...shadowPodOpt) *virtualkubeletv1alpha1.ShadowPod {
	sp := &virtualkubeletv1alpha1.ShadowPod{
		ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: name, UID: spUID, Generation: 1,
			Labels:      map[string]string{"app": "web"},
			Annotations: map[string]string{"prometheus.io/scrape": "true"}},
		Spec: virtualkubeletv1alpha1.ShadowPodSpec{Pod: corev1.PodSpec{
			Containers:    []corev1.Container{{Name: "web", Image: "nginx:1.27"}},
			RestartPolicy: corev1.RestartPolicyAlways,
		}},
		Status: virtualkubeletv1alpha1.ShadowPodStatus{ObservedGeneration: -1},
	}
	for _, f := range opts {
		f(sp)
	}
	return sp
}

func withRestartPolicy(p corev1.RestartPolicy) shadowPodOpt {
	return func(sp *virtualkubeletv1alpha1.ShadowPod) { sp.Spec.Pod.RestartPolicy = p }
}

func withNamespace(ns string) shadowPodOpt {
	return func(sp *virtualkubeletv1alpha1.ShadowPod) { sp.Namespace = ns }
}

func withLabel(k, v string) shadowPodOpt {
	return func(sp *virtualkubeletv1alpha1.ShadowPod) { sp.Labels[k] = v }
}

func withAnnotation(k, v string) shadowPodOpt {
	return func(sp *virtualkubeletv1alpha1.ShadowPod) { sp.Annotations[k] = v }
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	return s
}

// env is a reconciler against a fake API server.
type env struct {
	t *testing.T
	g *WithT
	c client.Client
	r *ShadowPodReconciler
}

func newEnv(t *testing.T, objs ...client.Object) *env {
	t.Helper()
	return newInterceptedEnv(t, interceptor.Funcs{}, objs...)
}

// newInterceptedEnv is newEnv with the fake API server's calls passed
// through funcs first: to record what is sent, or to refuse it.
func newInterceptedEnv(t *testing.T, funcs interceptor.Funcs, objs ...client.Object) *env {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(objs...).
		WithStatusSubresource(&virtualkubeletv1alpha1.ShadowPod{}).WithInterceptorFuncs(funcs).Build()
	return &env{t: t, g: NewWithT(t), c: c, r: &ShadowPodReconciler{Client: c}}
}

func (e *env) reconcile(sp *virtualkubeletv1alpha1.ShadowPod) (ctrl.Result, error) {
	e.t.Helper()
	return e.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(sp)})
}

// mustReconcile reconciles without error and returns the ShadowPod as stored.
func (e *env) mustReconcile(sp *virtualkubeletv1alpha1.ShadowPod) (ctrl.Result, *virtualkubeletv1alpha1.ShadowPod) {
	e.t.Helper()
	res, err := e.reconcile(sp)
	e.g.Expect(err).NotTo(HaveOccurred())
	got := &virtualkubeletv1alpha1.ShadowPod{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKeyFromObject(sp), got)).To(Succeed())
	return res, got
}

// pod returns the pod of the ShadowPod; ok is false when there is none.
func (e *env) pod(sp *virtualkubeletv1alpha1.ShadowPod) (*corev1.Pod, bool) {
	pod := &corev1.Pod{}
	err := e.c.Get(context.Background(), client.ObjectKeyFromObject(sp), pod)
	return pod, err == nil
}

func (e *env) mustPod(sp *virtualkubeletv1alpha1.ShadowPod) *corev1.Pod {
	e.t.Helper()
	pod, ok := e.pod(sp)
	e.g.Expect(ok).To(BeTrue(), "pod %s/%s exists", sp.Namespace, sp.Name)
	return pod
}

// kubelet sets the pod's phase and readiness, as the kubelet would.
func (e *env) kubelet(sp *virtualkubeletv1alpha1.ShadowPod, phase corev1.PodPhase, ready bool) {
	e.t.Helper()
	pod := e.mustPod(sp)
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Phase = phase
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}
	e.g.Expect(e.c.Status().Update(context.Background(), pod)).To(Succeed())
}

// deletePod deletes the pod as an eviction, a drain or a person would.
func (e *env) deletePod(sp *virtualkubeletv1alpha1.ShadowPod) {
	e.t.Helper()
	e.g.Expect(e.c.Delete(context.Background(), e.mustPod(sp))).To(Succeed())
}

func keyOf(obj client.Object) client.ObjectKey { return client.ObjectKeyFromObject(obj) }

// condition returns the condition of type t, or an empty one.
func condition(sp *virtualkubeletv1alpha1.ShadowPod, t string) metav1.Condition {
	for _, c := range sp.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return metav1.Condition{}
}
