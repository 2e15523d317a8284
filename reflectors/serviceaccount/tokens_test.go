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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/reflectors/reflection/reflectiontest"
)

// newTokenFixture is rome with one pod of ServiceAccount builder on milan's
// virtual node, liqo-demo offloaded as liqo-demo-rome, and remote holding
// the provider's objects.
func newTokenFixture(remote ...client.Object) (*Reflector, client.Client) {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(offloadingv1alpha1.AddToScheme(s))
	local := fake.NewClientBuilder().WithScheme(s).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithObjects(pod("web", "builder"),
			&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "builder"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "kube-root-ca.crt"}, Data: map[string]string{"ca.crt": "CA"}},
			&offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo", Name: "offloading"}}).Build()
	rc := fake.NewClientBuilder().WithObjects(remote...).Build()
	peer := *reflectiontest.Milan()
	peer.Remote = rc
	peer.Namespaces = func(_ context.Context, ns string) (string, error) {
		if ns == "liqo-demo" {
			return "liqo-demo-rome", nil
		}
		return "", errors.New("not offloaded")
	}
	r := &Reflector{Peer: peer, Local: local, renewAt: map[types.NamespacedName]time.Time{}}
	// What the pod informer's handler sees of the fixture's pod as it starts.
	r.inUse.track(peer.NodeName, nil, pod("web", "builder"))
	return r, rc
}

// deletePod deletes p locally and hands its deletion to the reflector, as
// the pod informer's handler would.
func deletePod(ctx context.Context, r *Reflector, p *corev1.Pod) error {
	if err := r.Local.Delete(ctx, p); err != nil {
		return err
	}
	r.inUse.track(r.Peer.NodeName, p, nil)
	return nil
}

func TestSyncSurvivesAUserSecretWithTheTokenLabelsAndAShortName(t *testing.T) {
	g := NewWithT(t)
	r, _ := newTokenFixture()
	user := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo-rome", Name: "x", Labels: r.labels()}}
	g.Expect(r.Peer.Remote.Create(context.Background(), user)).To(Succeed())
	g.Expect(r.syncAll(context.Background())).To(Succeed())
	g.Expect(r.Peer.Remote.Get(context.Background(), client.ObjectKeyFromObject(user), &corev1.Secret{})).To(Succeed(),
		"not a token Secret's name: not collected")
}

func TestATokenSecretDeletedOnTheProviderComesBackBeforeItsRenewal(t *testing.T) {
	g := NewWithT(t)
	r, remote := newTokenFixture()
	ctx := context.Background()
	key := client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}
	g.Expect(r.syncAll(ctx)).To(Succeed())
	token := &corev1.Secret{}
	g.Expect(remote.Get(ctx, key, token)).To(Succeed())
	r.renewAt[types.NamespacedName{Namespace: "liqo-demo", Name: "builder"}] = time.Now().Add(time.Hour) // not due

	g.Expect(remote.Delete(ctx, token)).To(Succeed())
	g.Expect(r.syncAll(ctx)).To(Succeed())
	g.Expect(remote.Get(ctx, key, &corev1.Secret{})).To(Succeed(), "recreated although not due for renewal")
}

func TestSyncCollectsOnlyTokenSecretsNoPodNeeds(t *testing.T) {
	g := NewWithT(t)
	r, remote := newTokenFixture()
	ctx := context.Background()
	stale := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo-demo-rome", Name: SecretName("gone"), Labels: r.labels()}}
	g.Expect(remote.Create(ctx, stale)).To(Succeed())
	g.Expect(r.syncAll(ctx)).To(Succeed())
	g.Expect(apierrors.IsNotFound(remote.Get(ctx, client.ObjectKeyFromObject(stale), &corev1.Secret{}))).To(BeTrue())
	g.Expect(remote.Get(ctx, client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}, &corev1.Secret{})).To(Succeed())
}

func TestIsTokenSecretNeedsBothTheNameAndTheLabel(t *testing.T) {
	g := NewWithT(t)
	labelled := map[string]string{TokenLabel: "true"}
	g.Expect(IsTokenSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: SecretName("builder"), Labels: labelled}})).To(BeTrue())
	g.Expect(IsTokenSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "x", Labels: labelled}})).To(BeFalse())
	g.Expect(IsTokenSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: SecretName("builder")}})).To(BeFalse())
}

// FuzzServiceAccountOf: Secret names on the provider are anyone's; parsing
// one never panics and only a token Secret's name yields a ServiceAccount.
func FuzzServiceAccountOf(f *testing.F) {
	for _, seed := range []string{"x", "", SecretPrefix, SecretName("default"), "liqo-sa-token", "liqo-sa-token-a.b", "liqo-sa-tokeN-x", "é"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		sa, ok := ServiceAccountOf(name)
		if !ok {
			if strings.HasPrefix(name, SecretPrefix) && name != SecretPrefix {
				t.Fatalf("%q is a token Secret's name but was refused", name)
			}
			return
		}
		if sa == "" || SecretName(sa) != name {
			t.Fatalf("ServiceAccountOf(%q) = %q, which does not name it back", name, sa)
		}
	})
}
