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

package resourceoffer

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// This cluster, the provider, in every test.
const (
	providerID   = "milan-id"
	providerName = "milan"
	apiServerURL = "https://milan.example:6443"
)

type offerOpt func(*sharingv1alpha1.ResourceOffer)

// newOffer is an offer, in namespace liqo, to the consumer called name (cluster
// ID name+"-id") with the default percentage; options change one thing.
func newOffer(name string, opts ...offerOpt) *sharingv1alpha1.ResourceOffer {
	o := &sharingv1alpha1.ResourceOffer{
		ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: name, Generation: 1},
		Spec:       sharingv1alpha1.ResourceOfferSpec{ClusterID: name + "-id", ClusterName: name},
		Status:     sharingv1alpha1.ResourceOfferStatus{ObservedGeneration: -1},
	}
	for _, f := range opts {
		f(o)
	}
	return o
}

func withLimits(rl corev1.ResourceList) offerOpt {
	return func(o *sharingv1alpha1.ResourceOffer) {
		o.Spec.Resources = &sharingv1alpha1.OfferedResources{Limits: rl}
	}
}

func withPercentage(p int32) offerOpt {
	return func(o *sharingv1alpha1.ResourceOffer) { o.Spec.SharingPercentage = &p }
}

func withLabels(l map[string]string) offerOpt {
	return func(o *sharingv1alpha1.ResourceOffer) { o.Spec.Labels = l }
}

func withClusterID(id string) offerOpt {
	return func(o *sharingv1alpha1.ResourceOffer) { o.Spec.ClusterID = id }
}

func withClusterName(name string) offerOpt {
	return func(o *sharingv1alpha1.ResourceOffer) { o.Spec.ClusterName = name }
}

func withSuspend(o *sharingv1alpha1.ResourceOffer) { o.Spec.Suspend = true }

// rl builds a ResourceList from name, quantity pairs: rl("cpu", "8", "memory", "32Gi").
func rl(pairs ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[corev1.ResourceName(pairs[i])] = resource.MustParse(pairs[i+1])
	}
	return out
}

// newNode is a Ready, schedulable, physical node.
func newNode(name string, allocatable corev1.ResourceList) *corev1.Node {
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: corev1.NodeStatus{Allocatable: allocatable, Capacity: allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}},
	}
}

// newPod is a running pod on node requesting requests.
func newPod(namespace, name, node string, requests corev1.ResourceList, labels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox",
			Resources: corev1.ResourceRequirements{Requests: requests}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	utilruntime.Must(virtualkubeletv1alpha1.AddToScheme(s))
	return s
}

// env is a reconciler against a fake API server.
type env struct {
	t *testing.T
	g *WithT
	c client.Client
	r *ResourceOfferReconciler
}

func newEnv(t *testing.T, objs ...client.Object) *env {
	t.Helper()
	s := testScheme()
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithStatusSubresource(&sharingv1alpha1.ResourceOffer{}, &virtualkubeletv1alpha1.ShadowPod{}).Build()
	r := &ResourceOfferReconciler{Client: c, Scheme: s,
		LocalClusterID: providerID, LocalClusterName: providerName, APIServerURL: apiServerURL, Namespace: "liqo"}
	// The pod informer's first list, which podUsageSource feeds in the manager.
	for _, obj := range objs {
		if pod, ok := obj.(*corev1.Pod); ok {
			r.usage.observe(client.ObjectKeyFromObject(pod).String(), pod)
		}
	}
	return &env{t: t, g: NewWithT(t), c: c, r: r}
}

// usedBy is what pods hold per node, consumerID's own left out, as a
// reconciler's podUsage fed their events would give.
func usedBy(pods []corev1.Pod, consumerID string) map[string]policies.NodeUsage {
	var u podUsage
	for i := range pods {
		u.observe(client.ObjectKeyFromObject(&pods[i]).String(), &pods[i])
	}
	return u.except(consumerID)
}

func (e *env) reconcile(offer *sharingv1alpha1.ResourceOffer) (ctrl.Result, error) {
	e.t.Helper()
	return e.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKeyFromObject(offer)})
}

// mustReconcile reconciles without error and returns the offer as stored.
func (e *env) mustReconcile(offer *sharingv1alpha1.ResourceOffer) (ctrl.Result, *sharingv1alpha1.ResourceOffer) {
	e.t.Helper()
	res, err := e.reconcile(offer)
	e.g.Expect(err).NotTo(HaveOccurred())
	got := &sharingv1alpha1.ResourceOffer{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKeyFromObject(offer), got)).To(Succeed())
	return res, got
}

// fillToken plays the token controller of kube-controller-manager.
func (e *env) fillToken(namespace, token string) {
	e.t.Helper()
	s := &corev1.Secret{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: sharingv1alpha1.ConsumerTokenSecretName}, s)).To(Succeed())
	s.Data = map[string][]byte{corev1.ServiceAccountTokenKey: []byte(token), corev1.ServiceAccountRootCAKey: []byte("milan-ca")}
	e.g.Expect(e.c.Update(context.Background(), s)).To(Succeed())
}

// publish reconciles an offer to Ready: first pass, token filled, second pass.
func (e *env) publish(offer *sharingv1alpha1.ResourceOffer) *sharingv1alpha1.ResourceOffer {
	e.t.Helper()
	e.mustReconcile(offer)
	e.fillToken(sharingv1alpha1.TenantNamespaceName(offer.Spec.ClusterName, offer.Spec.ClusterID), "token-1")
	_, got := e.mustReconcile(offer)
	e.g.Expect(condition(got, sharingv1alpha1.ReadyCondition)).To(HaveField("Status", metav1.ConditionTrue))
	return got
}

func (e *env) get(key client.ObjectKey, obj client.Object) error {
	return e.c.Get(context.Background(), key, obj)
}

// condition returns the condition of type t, or an empty one.
func condition(o *sharingv1alpha1.ResourceOffer, t string) metav1.Condition {
	for _, c := range o.Status.Conditions {
		if c.Type == t {
			return c
		}
	}
	return metav1.Condition{}
}
