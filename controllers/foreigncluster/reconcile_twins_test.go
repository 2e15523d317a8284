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

package foreigncluster

import (
	"context"
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// twinFinalizer is the provider's: it holds a request until the twin is removed.
const twinFinalizer = "spillway.liqo.io/twin-namespace"

// twinRequest is a request rome made on milan for a twin; finalized, the
// provider has made the twin and holds the request until it is removed.
func twinRequest(twin string, finalized bool) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: sharingv1alpha1.TwinRequestName(twin),
		Labels: map[string]string{sharingv1alpha1.TwinRequestLabel: "true"}},
		Data: map[string]string{sharingv1alpha1.TwinRemoteNamespaceKey: twin, sharingv1alpha1.TwinPhaseKey: sharingv1alpha1.TwinPhaseReady}}
	if finalized {
		cm.Finalizers = []string{twinFinalizer}
	}
	return cm
}

// holdFinalizedConfigMaps makes the fake provider delete as an API server
// does: a ConfigMap with finalizers is only marked for deletion.
func holdFinalizedConfigMaps(cs *k8sfake.Clientset) {
	cs.PrependReactor("delete", "configmaps", func(a k8stesting.Action) (bool, runtime.Object, error) {
		d := a.(k8stesting.DeleteAction)
		obj, err := cs.Tracker().Get(corev1.SchemeGroupVersion.WithResource("configmaps"), d.GetNamespace(), d.GetName())
		if err != nil || len(obj.(*corev1.ConfigMap).Finalizers) == 0 {
			return false, nil, nil
		}
		cm := obj.(*corev1.ConfigMap).DeepCopy()
		if cm.DeletionTimestamp == nil {
			now := metav1.Now()
			cm.DeletionTimestamp = &now
		}
		return true, nil, cs.Tracker().Update(corev1.SchemeGroupVersion.WithResource("configmaps"), cm, cm.Namespace)
	})
}

// providerRemovesTwin is milan's tenant-namespace controller done with a
// twin: it deletes the namespace and lets the request go.
func providerRemovesTwin(g Gomega, cs *k8sfake.Clientset, twin string) {
	g.Expect(cs.Tracker().Delete(corev1.SchemeGroupVersion.WithResource("configmaps"), tenant, sharingv1alpha1.TwinRequestName(twin))).To(Succeed())
}

// deletedForeignCluster is the reconciler over milan's ForeignCluster,
// deleted (as Flux prunes it) with its virtual node, now empty of pods.
func deletedForeignCluster(g Gomega, rt *fakeRuntime, objs ...client.Object) (*ForeignClusterReconciler, client.Client) {
	r, c := newReconciler(rt, append([]client.Object{newForeignCluster(), virtualNode()}, objs...)...)
	fc := &discoveryv1alpha1.ForeignCluster{}
	g.Expect(c.Get(context.Background(), client.ObjectKey{Name: "milan"}, fc)).To(Succeed())
	g.Expect(c.Delete(context.Background(), fc)).To(Succeed())
	return r, c
}

func providerConfigMap(rt *fakeRuntime, name string) (*corev1.ConfigMap, error) {
	return rt.provider.CoreV1().ConfigMaps(tenant).Get(context.Background(), name, metav1.GetOptions{})
}

// TestReconcileDeleteReleasesTheTwinsBeforeStoppingTheSession: the
// offloading controller cannot reach a withdrawn peer, so the ForeignCluster
// withdraws every twin request of this cluster on the provider itself, with
// the session's client, and keeps the session, the node and the finalizer
// until the provider has removed the twins.
func TestReconcileDeleteReleasesTheTwinsBeforeStoppingTheSession(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	holdFinalizedConfigMaps(rt.provider)
	reflected := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: "not-a-request"}}
	for _, o := range []*corev1.ConfigMap{twinRequest("liqo-demo-rome-x1", true), twinRequest("never-made", false), reflected} {
		_, err := rt.provider.CoreV1().ConfigMaps(tenant).Create(ctx, o, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}
	r, c := deletedForeignCluster(g, rt)

	fc := reconcileAndGet(t, r, c)
	held, err := providerConfigMap(rt, sharingv1alpha1.TwinRequestName("liqo-demo-rome-x1"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(held.DeletionTimestamp).NotTo(BeNil(), "the request is withdrawn")
	_, err = providerConfigMap(rt, sharingv1alpha1.TwinRequestName("never-made"))
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "a request the provider never served goes at once")
	_, err = providerConfigMap(rt, "not-a-request")
	g.Expect(err).NotTo(HaveOccurred(), "only twin requests are withdrawn")
	_, err = providerConfigMap(rt, sharingv1alpha1.OfferConfigMapName)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rt.stopped).To(BeEmpty(), "the session runs until the provider has removed the twin")
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{})).To(Succeed())
	g.Expect(fc.Finalizers).To(ContainElement(Finalizer))
	g.Expect(readyOf(fc).Status).To(Equal(metav1.ConditionFalse))
	g.Expect(readyOf(fc).Reason).To(Equal(ReasonUnpeering))
	g.Expect(readyOf(fc).Message).To(And(ContainSubstring("waiting for the provider to remove 1 twin namespace(s)"),
		ContainSubstring(sharingv1alpha1.TwinRequestName("liqo-demo-rome-x1"))))
	g.Expect(rt.connects).To(BeEmpty(), "the session's client is used")

	providerRemovesTwin(g, rt.provider, "liqo-demo-rome-x1")
	_, err = r.Reconcile(ctx, reconcileRequest("milan"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rt.stopped).To(ConsistOf("milan"))
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue(), "finalizer released")
}

// TestReconcileDeleteKeepsEverythingWhileTheProviderDoesNotAnswer: an
// unreachable provider keeps its twins, the session and the node, and the
// ForeignCluster its finalizer, saying why.
func TestReconcileDeleteKeepsEverythingWhileTheProviderDoesNotAnswer(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	_, err := rt.provider.CoreV1().ConfigMaps(tenant).Create(ctx, twinRequest("liqo-demo-rome-x1", true), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	rt.provider.PrependReactor("*", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("dial tcp 127.0.0.1:17022: connect: connection refused")
	})
	r, c := deletedForeignCluster(g, rt)

	for range 2 {
		fc := reconcileAndGet(t, r, c)
		g.Expect(fc.Finalizers).To(ContainElement(Finalizer))
		g.Expect(readyOf(fc).Status).To(Equal(metav1.ConditionFalse))
		g.Expect(readyOf(fc).Message).To(And(ContainSubstring("cannot reach the provider"), ContainSubstring("connection refused")))
	}
	g.Expect(rt.stopped).To(BeEmpty())
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "liqo-milan"}, &corev1.Node{})).To(Succeed())
	g.Expect(rt.provider.Tracker().Get(corev1.SchemeGroupVersion.WithResource("configmaps"), tenant,
		sharingv1alpha1.TwinRequestName("liqo-demo-rome-x1"))).NotTo(BeNil(), "nothing deleted on the provider")
}

// TestReconcileDeleteConnectsWithTheCredentialsAfterARestart: a manager
// restarted since the peering was ensured has no session; the credentials
// Secret still reaches the provider.
func TestReconcileDeleteConnectsWithTheCredentialsAfterARestart(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	rt.noSession = true
	_, err := rt.provider.CoreV1().ConfigMaps(tenant).Create(ctx, twinRequest("liqo-demo-rome-x1", false), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	r, c := deletedForeignCluster(g, rt, credentialsSecret(map[string]string{"kubeconfig": kubeconfig}))

	_, err = r.Reconcile(ctx, reconcileRequest("milan"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rt.connects).To(HaveLen(1))
	_, err = providerConfigMap(rt, sharingv1alpha1.TwinRequestName("liqo-demo-rome-x1"))
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue())
}

// TestReconcileDeleteWithoutSessionOrCredentialsKeepsTheFinalizer: with a
// virtual node there may be twins, and nothing to reach the provider with.
func TestReconcileDeleteWithoutSessionOrCredentialsKeepsTheFinalizer(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	rt.noSession = true
	r, c := deletedForeignCluster(g, rt)
	fc := reconcileAndGet(t, r, c)
	g.Expect(fc.Finalizers).To(ContainElement(Finalizer))
	g.Expect(readyOf(fc).Message).To(And(ContainSubstring("liqo/milan-credentials is gone"), ContainSubstring("remove finalizer "+Finalizer)))
	g.Expect(rt.stopped).To(BeEmpty())
}

// TestReconcileDeleteOfANeverEnsuredPeeringAsksNothing: no session and no
// virtual node, so no twin was ever requested through this peering.
func TestReconcileDeleteOfANeverEnsuredPeeringAsksNothing(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	rt.noSession = true
	r, c := newReconciler(rt, newForeignCluster())
	fc := &discoveryv1alpha1.ForeignCluster{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "milan"}, fc)).To(Succeed())
	g.Expect(c.Delete(ctx, fc)).To(Succeed())
	_, err := r.Reconcile(ctx, reconcileRequest("milan"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rt.connects).To(BeEmpty())
	g.Expect(rt.provider.Actions()).To(BeEmpty())
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue())
}

// TestReconcileDeleteGoesOnWhenTheProviderRevokedThisCluster: a provider
// whose offer is gone removes the tenant, requests and twins with it, and
// refuses the identity meanwhile: there is nothing left to release.
func TestReconcileDeleteGoesOnWhenTheProviderRevokedThisCluster(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	rt.provider.PrependReactor("list", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewUnauthorized("invalid bearer token")
	})
	r, c := deletedForeignCluster(g, rt)
	_, err := r.Reconcile(ctx, reconcileRequest("milan"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(rt.stopped).To(ConsistOf("milan"))
	g.Expect(apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: "milan"}, &discoveryv1alpha1.ForeignCluster{}))).To(BeTrue())
}

// TestReconcileUnpeerReleasesTheTwinsToo: disabling outgoing peering leaves
// no twin behind either, and reports the wait.
func TestReconcileUnpeerReleasesTheTwinsToo(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	holdFinalizedConfigMaps(rt.provider)
	_, err := rt.provider.CoreV1().ConfigMaps(tenant).Create(ctx, twinRequest("liqo-demo-rome-x1", true), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	r, c := newReconciler(rt, newForeignCluster(withOutgoing(discoveryv1alpha1.PeeringEnabledNo)), virtualNode())

	fc := reconcileAndGet(t, r, c)
	g.Expect(fc.PeeringStatus(discoveryv1alpha1.OutgoingPeeringCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusDisconnecting))
	g.Expect(readyOf(fc).Message).To(ContainSubstring("waiting for the provider to remove 1 twin namespace(s)"))
	g.Expect(rt.stopped).To(BeEmpty())

	providerRemovesTwin(g, rt.provider, "liqo-demo-rome-x1")
	fc = reconcileAndGet(t, r, c)
	g.Expect(rt.stopped).To(ConsistOf("milan"))
	g.Expect(readyOf(fc).Reason).To(Equal(discoveryv1alpha1.PeeringDisabledReason))
}
