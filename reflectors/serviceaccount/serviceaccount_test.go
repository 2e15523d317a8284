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

package serviceaccount

import (
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
)

func pod(name, sa string, mutate ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: name}, Spec: corev1.PodSpec{NodeName: "liqo-milan", ServiceAccountName: sa}}
	for _, m := range mutate {
		m(p)
	}
	return p
}

func TestNeededCountsServiceAccountsThatAreMounted(t *testing.T) {
	g := NewWithT(t)
	noMount := func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) }
	got := Needed([]corev1.Pod{*pod("a", "builder"), *pod("b", ""), *pod("c", "builder"), *pod("d", "quiet", noMount)})
	g.Expect(got).To(HaveLen(2))
	g.Expect(got).To(HaveKey(HaveField("Name", "builder")))
	g.Expect(got).To(HaveKey(HaveField("Name", "default")), "a pod without a ServiceAccount uses default")
}

func TestSyncWritesATokenSecretAndCollectsUnusedOnes(t *testing.T) {
	g := NewWithT(t)
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	local := fake.NewClientBuilder().WithScheme(s).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithObjects(pod("web", "builder"),
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "builder"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "kube-root-ca.crt"}, Data: map[string]string{"ca.crt": "CA"}},
			&offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "offloading"}}).Build()
	remote := fake.NewClientBuilder().Build()
	peer := *reflectiontest.Milan()
	peer.Remote = remote
	peer.Namespaces = func(_ context.Context, ns string) (string, error) {
		if ns == "liqo-demo" {
			return "liqo-demo-rome", nil
		}
		return "", errors.New("not offloaded")
	}
	r := &Reflector{Peer: peer, Local: local, renewAt: map[types.NamespacedName]time.Time{}}
	g.Expect(r.syncAll(context.Background())).To(Succeed())
	secret := &corev1.Secret{}
	g.Expect(remote.Get(context.Background(), client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}, secret)).To(Succeed())
	g.Expect(secret.Data).To(HaveKeyWithValue(CACertKey, []byte("CA")))
	g.Expect(secret.Data).To(HaveKeyWithValue(NamespaceKey, []byte("liqo-demo")))
	g.Expect(secret.Data).To(HaveKey(TokenKey))

	g.Expect(local.Delete(context.Background(), pod("web", "builder"))).To(Succeed())
	g.Expect(r.syncAll(context.Background())).To(Succeed())
	list := &corev1.SecretList{}
	g.Expect(remote.List(context.Background(), list)).To(Succeed())
	g.Expect(list.Items).To(BeEmpty(), "no pod mounts builder's token any more")
}

// The full pass reads the pod informer's store when it has one: the reader
// here fails every List, so only the store can give the set, and pods on
// another node or not mounting a token stay out of it.
func TestNeededListedReadsThePodStoreInPlace(t *testing.T) {
	g := NewWithT(t)
	store := toolscache.NewStore(toolscache.MetaNamespaceKeyFunc)
	elsewhere := func(p *corev1.Pod) { p.Spec.NodeName = "liqo-naples" }
	noMount := func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) }
	for _, p := range []*corev1.Pod{pod("a", "builder"), pod("b", ""), pod("c", "other", elsewhere), pod("d", "quiet", noMount)} {
		g.Expect(store.Add(p)).To(Succeed())
	}
	r := &Reflector{Peer: *reflectiontest.Milan(), Local: failingLister{}, podStore: store}
	got, err := r.neededListed(context.Background())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got).To(Equal(map[types.NamespacedName]bool{
		{Namespace: "liqo-demo", Name: "builder"}: true,
		{Namespace: "liqo-demo", Name: "default"}: true,
	}))

	r.podStore = nil
	_, err = r.neededListed(context.Background())
	g.Expect(err).To(MatchError(errListRefused), "without a store the pass lists through the cache")
}

var errListRefused = errors.New("list refused")

// failingLister is a client whose every List fails.
type failingLister struct{ client.Client }

func (failingLister) List(context.Context, client.ObjectList, ...client.ListOption) error {
	return errListRefused
}
