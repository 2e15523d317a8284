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

package tenantnamespace

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// This cluster, the provider, in every test.
const providerName = "milan"

// tenantOf is the tenant namespace of the consumer called consumer.
func tenantOf(consumer string) string { return sharingv1alpha1.TenantNamespacePrefix + consumer }

// idOf is the cluster ID of the consumer called consumer.
func idOf(consumer string) string { return consumer + "-id" }

// newTenant is the tenant namespace the ResourceOffer controller made for consumer.
func newTenant(consumer string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantOf(consumer), Labels: map[string]string{
		sharingv1alpha1.TenantNamespaceLabel: "true", sharingv1alpha1.RemoteClusterIDLabel: idOf(consumer)}}}
}

type requestOpt func(*corev1.ConfigMap)

// newRequest is consumer's request, in its tenant namespace, for a twin
// called twin of its namespace "shop"; options change one thing.
func newRequest(consumer, twin string, opts ...requestOpt) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: tenantOf(consumer), Name: sharingv1alpha1.TwinRequestName(twin),
			Labels: map[string]string{sharingv1alpha1.TwinRequestLabel: "true"}},
		Data: map[string]string{sharingv1alpha1.TwinRemoteNamespaceKey: twin, sharingv1alpha1.TwinLocalNamespaceKey: "shop"},
	}
	for _, f := range opts {
		f(cm)
	}
	return cm
}

func withData(key, value string) requestOpt {
	return func(cm *corev1.ConfigMap) { cm.Data[key] = value }
}

func withoutData(key string) requestOpt {
	return func(cm *corev1.ConfigMap) { delete(cm.Data, key) }
}

func withName(name string) requestOpt {
	return func(cm *corev1.ConfigMap) { cm.Name = name }
}

func withNamespace(ns string) requestOpt {
	return func(cm *corev1.ConfigMap) { cm.Namespace = ns }
}

type namespaceOpt func(*corev1.Namespace)

// newNamespace is a plain namespace; options label it.
func newNamespace(name string, opts ...namespaceOpt) *corev1.Namespace {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, f := range opts {
		f(ns)
	}
	return ns
}

func withLabel(key, value string) namespaceOpt {
	return func(ns *corev1.Namespace) {
		if ns.Labels == nil {
			ns.Labels = map[string]string{}
		}
		ns.Labels[key] = value
	}
}

// twinOf labels a namespace as consumer's twin, as this controller does.
func twinOf(consumer string) namespaceOpt {
	return func(ns *corev1.Namespace) {
		withLabel(sharingv1alpha1.TwinNamespaceLabel, idOf(consumer))(ns)
		withLabel(sharingv1alpha1.RemoteClusterIDLabel, idOf(consumer))(ns)
	}
}

func newPod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
}

func newShadowPod(namespace, name string) *virtualkubeletv1alpha1.ShadowPod {
	return &virtualkubeletv1alpha1.ShadowPod{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: virtualkubeletv1alpha1.ShadowPodSpec{Pod: newPod(namespace, name).Spec}}
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	return s
}

// env is a reconciler against a fake API server.
type env struct {
	t *testing.T
	g *WithT
	c client.Client
	r *TwinNamespaceReconciler
}

func newEnv(t *testing.T, objs ...client.Object) *env {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(objs...).
		WithStatusSubresource(&virtualkubeletv1alpha1.ShadowPod{}).Build()
	return &env{t: t, g: NewWithT(t), c: c, r: &TwinNamespaceReconciler{Client: c, LocalClusterName: providerName}}
}

func (e *env) reconcile(request *corev1.ConfigMap) (ctrl.Result, error) {
	e.t.Helper()
	return e.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(request)})
}

// mustReconcile reconciles without error and returns the request as stored,
// or nil once it is gone.
func (e *env) mustReconcile(request *corev1.ConfigMap) (ctrl.Result, *corev1.ConfigMap) {
	e.t.Helper()
	res, err := e.reconcile(request)
	e.g.Expect(err).NotTo(HaveOccurred())
	got := &corev1.ConfigMap{}
	if err := e.get(client.ObjectKeyFromObject(request), got); apierrors.IsNotFound(err) {
		return res, nil
	}
	return res, got
}

func (e *env) get(key client.ObjectKey, obj client.Object) error {
	return e.c.Get(context.Background(), key, obj)
}

func (e *env) namespace(name string) *corev1.Namespace {
	e.t.Helper()
	ns := &corev1.Namespace{}
	e.g.Expect(e.get(client.ObjectKey{Name: name}, ns)).To(Succeed())
	return ns
}

func (e *env) gone(key client.ObjectKey, obj client.Object) bool {
	return apierrors.IsNotFound(e.get(key, obj))
}

func (e *env) delete(obj client.Object) {
	e.t.Helper()
	e.g.Expect(e.c.Delete(context.Background(), obj)).To(Succeed())
}
