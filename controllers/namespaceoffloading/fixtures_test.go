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

package namespaceoffloading

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
	"github.com/spillway-dev/spillway/reflectors/remote"
)

// This cluster, the consumer, in every test; the offloaded namespace is "apps".
const (
	consumerID   = "rome-id"
	consumerName = "rome"
	localNs      = "apps"
	// tenantNs is the consumer's namespace on every provider, where twin requests go.
	tenantNs = "liqo-tenant-rome"
)

// twinName is the name "apps" has on the providers with the default mapping.
var twinName = policies.RemoteNamespaceName(offloadingv1alpha1.DefaultNameMappingStrategy, localNs, consumerName, consumerID)

type offloadingOpt func(*offloadingv1alpha1.NamespaceOffloading)

// newOffloading is the NamespaceOffloading of namespace apps, selecting every
// peer; options change one thing.
func newOffloading(opts ...offloadingOpt) *offloadingv1alpha1.NamespaceOffloading {
	no := &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Namespace: localNs, Name: offloadingv1alpha1.RequiredName, Generation: 1},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.DefaultNameMappingStrategy,
			PodOffloadingStrategy: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy},
		Status: offloadingv1alpha1.NamespaceOffloadingStatus{ObservedGeneration: -1},
	}
	for _, f := range opts {
		f(no)
	}
	return no
}

func withName(name string) offloadingOpt {
	return func(no *offloadingv1alpha1.NamespaceOffloading) { no.Name = name }
}

func withSuspend(no *offloadingv1alpha1.NamespaceOffloading) { no.Spec.Suspend = true }

func withFinalizer(no *offloadingv1alpha1.NamespaceOffloading) {
	no.Finalizers = append(no.Finalizers, Finalizer)
}

// withDeleting is an object someone deleted; the finalizer holds it.
func withDeleting(no *offloadingv1alpha1.NamespaceOffloading) {
	now := metav1.Now()
	no.DeletionTimestamp = &now
}

// withSelector selects the peers whose virtual node has label key=value.
func withSelector(key, value string) offloadingOpt {
	return func(no *offloadingv1alpha1.NamespaceOffloading) {
		no.Spec.ClusterSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: corev1.NodeSelectorOpIn, Values: []string{value}}}}}}
	}
}

// withRemoteName records the twin's name, as an earlier reconcile did.
func withRemoteName(no *offloadingv1alpha1.NamespaceOffloading) {
	no.Status.RemoteNamespaceName = twinName
}

// virtualNode is the virtual node standing for provider name (cluster ID name+"-id").
func virtualNode(name string, labels ...string) *corev1.Node {
	l := map[string]string{virtualkubeletv1alpha1.TypeLabel: virtualkubeletv1alpha1.TypeVirtualNode, virtualkubeletv1alpha1.RemoteClusterIDLabel: name + "-id"}
	for i := 0; i+1 < len(labels); i += 2 {
		l[labels[i]] = labels[i+1]
	}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: virtualkubeletv1alpha1.VirtualNodeName(name), Labels: l}}
}

// pod is a pod of namespace apps bound to node.
func pod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: localNs, Name: name},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
}

func testScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	utilruntime.Must(discoveryv1alpha1.AddToScheme(s))
	return s
}

// env is a consumer's reconciler against a fake API server, with providers
// whose API servers are fake clientsets.
type env struct {
	t         *testing.T
	g         *WithT
	c         client.Client
	r         *NamespaceOffloadingReconciler
	providers map[string]*kubefake.Clientset
}

// newEnv holds namespace apps and objs locally; no provider is connected yet.
func newEnv(t *testing.T, objs ...client.Object) *env {
	t.Helper()
	objs = append(objs, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: localNs}})
	c := fake.NewClientBuilder().WithScheme(testScheme()).WithObjects(objs...).
		WithStatusSubresource(&offloadingv1alpha1.NamespaceOffloading{}).WithReturnManagedFields().Build()
	return &env{t: t, g: NewWithT(t), c: c, providers: map[string]*kubefake.Clientset{},
		r: &NamespaceOffloadingReconciler{Client: c, LocalClusterID: consumerID, LocalClusterName: consumerName, Peers: &remote.Registry{}}}
}

// connect establishes the peering with provider name, as the ForeignCluster
// controller does, and returns the provider's API server.
func (e *env) connect(name string) *kubefake.Clientset {
	provider := kubefake.NewClientset()
	e.providers[name] = provider
	e.r.Peers.Set(remote.Peer{ClusterID: name + "-id", ClusterName: name, NodeName: virtualkubeletv1alpha1.VirtualNodeName(name),
		TenantNamespace: tenantNs, Client: provider})
	return provider
}

// reqFor is the request for the NamespaceOffloading called name in namespace apps.
func reqFor(name string) ctrl.Request {
	return ctrl.Request{NamespacedName: client.ObjectKey{Namespace: localNs, Name: name}}
}

func (e *env) reconcile() (ctrl.Result, error) {
	e.t.Helper()
	return e.r.Reconcile(context.Background(), reqFor(offloadingv1alpha1.RequiredName))
}

// mustReconcile reconciles without error and returns the object as stored.
func (e *env) mustReconcile() (ctrl.Result, *offloadingv1alpha1.NamespaceOffloading) {
	e.t.Helper()
	res, err := e.reconcile()
	e.g.Expect(err).NotTo(HaveOccurred())
	return res, e.offloading()
}

func (e *env) offloading() *offloadingv1alpha1.NamespaceOffloading {
	e.t.Helper()
	no := &offloadingv1alpha1.NamespaceOffloading{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Namespace: localNs, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
	return no
}

// twinRequest is the request provider holds for namespace apps; nil when there is none.
func twinRequest(g *WithT, provider kubernetes.Interface) *corev1.ConfigMap {
	list, err := provider.CoreV1().ConfigMaps(tenantNs).List(context.Background(), metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	for i := range list.Items {
		if list.Items[i].Name == sharingv1alpha1.TwinRequestName(twinName) {
			return &list.Items[i]
		}
	}
	return nil
}

// answer plays the provider's tenant-namespace controller: it writes its
// outcome into the request.
func answer(g *WithT, provider kubernetes.Interface, phase, message string) {
	cm := twinRequest(g, provider)
	g.Expect(cm).NotTo(BeNil(), "the consumer asked for the twin")
	cm.Data[sharingv1alpha1.TwinPhaseKey], cm.Data[sharingv1alpha1.TwinMessageKey] = phase, message
	_, err := provider.CoreV1().ConfigMaps(tenantNs).Update(context.Background(), cm, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
}

// remoteCondition is the status of condition t for the peer called name.
func remoteCondition(no *offloadingv1alpha1.NamespaceOffloading, name string, t offloadingv1alpha1.RemoteNamespaceConditionType) offloadingv1alpha1.RemoteNamespaceCondition {
	for _, c := range no.Status.RemoteNamespacesConditions[policies.UniqueClusterName(name, name+"-id")] {
		if c.Type == t {
			return c
		}
	}
	return offloadingv1alpha1.RemoteNamespaceCondition{}
}

// ready is the object's Ready condition, or an empty one.
func ready(no *offloadingv1alpha1.NamespaceOffloading) metav1.Condition {
	if c := conditions.Get(no, meta.ReadyCondition); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// intercept puts funcs between the reconciler and the fake API server; the
// test's own reads still go straight to it.
func (e *env) intercept(funcs interceptor.Funcs) {
	e.r.Client = interceptor.NewClient(e.c.(client.WithWatch), funcs)
}

// labelNamespace labels namespace apps for scheduling as field manager
// manager, which the fake API server records in its managedFields.
func (e *env) labelNamespace(manager string) {
	ns := &corev1.Namespace{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Name: localNs}, ns)).To(Succeed())
	ns.Labels = map[string]string{offloadingv1alpha1.SchedulingEnabledLabel: offloadingv1alpha1.SchedulingEnabledValue}
	e.g.Expect(e.c.Update(context.Background(), ns, client.FieldOwner(manager))).To(Succeed())
}

// namespaceLabels are the labels of namespace apps as stored.
func (e *env) namespaceLabels() map[string]string {
	ns := &corev1.Namespace{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Name: localNs}, ns)).To(Succeed())
	return ns.Labels
}
