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
	"slices"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	k8sfake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/peering"
	"github.com/spillway-dev/spillway/peering/virtualnode"
)

// This cluster (rome, the consumer) and its provider (milan) in every test.
const (
	localID    = "rome-id"
	providerID = "milan-id"
	tenant     = "liqo-tenant-rome"
)

// fakeRuntime records what the reconciler asks of the peering runtime; the
// provider is a fake clientset holding milan's offer for rome.
type fakeRuntime struct {
	mu        sync.Mutex
	provider  *k8sfake.Clientset
	connects  []string // fingerprints, in order
	ensured   []peering.Peer
	withdrawn []string
	stopped   []string
	health    virtualnode.Health
	// noSession: the manager restarted, no session lends a client.
	noSession bool
}

func newFakeRuntime() *fakeRuntime {
	offer := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: tenant, Name: sharingv1alpha1.OfferConfigMapName}, Data: map[string]string{
		sharingv1alpha1.OfferProviderClusterIDKey: providerID, sharingv1alpha1.OfferConsumerClusterIDKey: localID,
		sharingv1alpha1.OfferReadyKey: "true", sharingv1alpha1.OfferResourcesKey: `{"cpu":"7200m"}`,
	}}
	return &fakeRuntime{provider: k8sfake.NewClientset(offer), health: virtualnode.Health{Ready: true}}
}

func (f *fakeRuntime) Connect(_ string, _ *rest.Config, fingerprint string) (kubernetes.Interface, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.connects = append(f.connects, fingerprint)
	return f.provider, nil
}

func (f *fakeRuntime) Ensure(_ context.Context, p peering.Peer) (virtualnode.Health, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ensured = append(f.ensured, p)
	return f.health, nil
}

func (f *fakeRuntime) Withdraw(id string) {
	f.mu.Lock()
	f.withdrawn = append(f.withdrawn, id)
	f.mu.Unlock()
}
func (f *fakeRuntime) Stop(name string) {
	f.mu.Lock()
	f.stopped = append(f.stopped, name)
	f.mu.Unlock()
}

// Provider lends the provider's client as a running session would: until
// the session is stopped, and never with noSession.
func (f *fakeRuntime) Provider(name string) (kubernetes.Interface, string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.noSession || slices.Contains(f.stopped, name) {
		return nil, "", false
	}
	return f.provider, tenant, true
}

type fcOpt func(*discoveryv1alpha1.ForeignCluster)

// newForeignCluster is rome's committed ForeignCluster for milan, with the
// finalizer already added; options change one thing.
func newForeignCluster(opts ...fcOpt) *discoveryv1alpha1.ForeignCluster {
	fc := &discoveryv1alpha1.ForeignCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "milan", Generation: 1, Finalizers: []string{Finalizer}},
		Spec: discoveryv1alpha1.ForeignClusterSpec{
			ClusterIdentity:        discoveryv1alpha1.ClusterIdentity{ClusterID: providerID, ClusterName: "milan"},
			OutgoingPeeringEnabled: discoveryv1alpha1.PeeringEnabledYes,
			CredentialsSecretRef:   &discoveryv1alpha1.SecretReference{Namespace: "liqo", Name: "milan-credentials"},
		},
		Status: discoveryv1alpha1.ForeignClusterStatus{ObservedGeneration: -1},
	}
	for _, f := range opts {
		f(fc)
	}
	return fc
}

func withOutgoing(enabled discoveryv1alpha1.PeeringEnabled) fcOpt {
	return func(fc *discoveryv1alpha1.ForeignCluster) { fc.Spec.OutgoingPeeringEnabled = enabled }
}
func withSuspend(fc *discoveryv1alpha1.ForeignCluster) { fc.Spec.Suspend = true }

// credentialsSecret is the credentials Secret with data (a kubeconfig or keys).
func credentialsSecret(data map[string]string) *corev1.Secret {
	s := secret(data)
	s.ResourceVersion = ""
	return s
}

// virtualNode is milan's virtual node on rome.
func virtualNode() *corev1.Node {
	name := virtualkubeletv1alpha1.VirtualNodeName("milan")
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name,
		Labels: virtualkubeletv1alpha1.VirtualNodeLabels(name, providerID, nil)}}
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(discoveryv1alpha1.AddToScheme(s))
	utilruntime.Must(sharingv1alpha1.AddToScheme(s))
	return s
}

// newReconciler is a reconciler over a fake local API holding objs.
func newReconciler(rt PeeringRuntime, objs ...client.Object) (*ForeignClusterReconciler, client.Client) {
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(objs...).
		WithStatusSubresource(&discoveryv1alpha1.ForeignCluster{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		Build()
	return &ForeignClusterReconciler{Client: c, LocalClusterID: localID, Runtime: rt}, c
}

// reconcileAndGet runs one reconcile of milan and returns the object after it.
func reconcileAndGet(t *testing.T, r *ForeignClusterReconciler, c client.Client) *discoveryv1alpha1.ForeignCluster {
	t.Helper()
	g := NewWithT(t)
	_, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: client.ObjectKey{Name: "milan"}})
	g.Expect(err).NotTo(HaveOccurred())
	fc := &discoveryv1alpha1.ForeignCluster{}
	g.Expect(c.Get(context.Background(), client.ObjectKey{Name: "milan"}, fc)).To(Succeed())
	return fc
}

func readyOf(fc *discoveryv1alpha1.ForeignCluster) *metav1.Condition {
	for i := range fc.Status.Conditions {
		if fc.Status.Conditions[i].Type == discoveryv1alpha1.ReadyCondition {
			return &fc.Status.Conditions[i]
		}
	}
	return nil
}

func reconcileRequest(name string) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKey{Name: name}}
}
