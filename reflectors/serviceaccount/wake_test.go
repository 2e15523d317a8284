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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestWakesOnlyWhenTheServiceAccountsInUseMayChange(t *testing.T) {
	const node = "liqo-milan"
	running := func(p *corev1.Pod) {
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	}
	unbound := func(p *corev1.Pod) { p.Spec.NodeName = "" }
	elsewhere := func(p *corev1.Pod) { p.Spec.NodeName = "worker-1" }
	deleting := func(p *corev1.Pod) { p.DeletionTimestamp = ptr.To(metav1.Now()) }
	noMount := func(p *corev1.Pod) { p.Spec.AutomountServiceAccountToken = ptr.To(false) }
	explicitDefault := func(p *corev1.Pod) { p.Spec.ServiceAccountName = "default" }
	for _, tc := range []struct {
		name     string
		old, new *corev1.Pod
		want     bool
	}{
		{"a pod added on the node", nil, pod("a", "builder"), true},
		{"a pod added elsewhere", nil, pod("a", "builder", elsewhere), false},
		{"a pod added unscheduled", nil, pod("a", "builder", unbound), false},
		{"a pod added without a token mount", nil, pod("a", "builder", noMount), false},
		{"a pod bound to the node", pod("a", "builder", unbound), pod("a", "builder"), true},
		{"a pod bound to another node", pod("a", "builder", unbound), pod("a", "builder", elsewhere), false},
		{"a status update", pod("a", "builder"), pod("a", "builder", running), false},
		{"a status update elsewhere", pod("a", "builder", elsewhere), pod("a", "builder", elsewhere, running), false},
		{"a label change", pod("a", "builder"), pod("a", "builder", func(p *corev1.Pod) { p.Labels = map[string]string{"x": "y"} }), false},
		{"the empty ServiceAccount named default", pod("a", ""), pod("a", "", explicitDefault), false},
		{"a pod starting to terminate", pod("a", "builder", running), pod("a", "builder", running, deleting), true},
		{"a terminating pod's status update", pod("a", "builder", deleting), pod("a", "builder", deleting, running), false},
		{"a pod deleted from the node", pod("a", "builder"), nil, true},
		{"a terminating pod deleted", pod("a", "builder", deleting), nil, false},
		{"a pod deleted elsewhere", pod("a", "builder", elsewhere), nil, false},
		{"a pod's ServiceAccount changed", pod("a", "builder"), pod("a", "deployer"), true},
		{"a pod's token mount turned off", pod("a", "builder"), pod("a", "builder", noMount), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(wakes(node, tc.old, tc.new)).To(Equal(tc.want))
		})
	}
}

func TestPodOfUnwrapsTombstones(t *testing.T) {
	g := NewWithT(t)
	p := pod("a", "builder")
	g.Expect(podOf(p)).To(BeIdenticalTo(p))
	g.Expect(podOf(toolscacheTombstone(p))).To(BeIdenticalTo(p))
	g.Expect(podOf(&corev1.Secret{})).To(BeNil())
}

func TestSyncChangedWritesNewTokensWithoutListingTheProvider(t *testing.T) {
	g := NewWithT(t)
	r, remote := newTokenFixture()
	counting := &listCounter{Client: remote}
	r.Peer.Remote = counting
	ctx := context.Background()
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	g.Expect(remote.Get(ctx, client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}, &corev1.Secret{})).To(Succeed())
	g.Expect(counting.lists).To(BeZero(), "a pod event must not list the provider's Secrets")
	g.Expect(r.renewAt).To(HaveKey(types.NamespacedName{Namespace: "liqo-demo", Name: "builder"}))
}

func TestSyncChangedCollectsATokenNoPodNeedsAnyMore(t *testing.T) {
	g := NewWithT(t)
	r, remote := newTokenFixture()
	ctx := context.Background()
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	g.Expect(deletePod(ctx, r, pod("web", "builder"))).To(Succeed())
	counting := &listCounter{Client: remote}
	r.Peer.Remote = counting
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	key := client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}
	g.Expect(apierrors.IsNotFound(remote.Get(ctx, key, &corev1.Secret{}))).To(BeTrue(), "no pod mounts builder's token any more")
	g.Expect(counting.lists).To(BeZero())
	g.Expect(r.renewAt).To(BeEmpty())
}

func TestSyncChangedLeavesASecretOfTheTokensNameThatIsNotOurs(t *testing.T) {
	g := NewWithT(t)
	r, remote := newTokenFixture()
	ctx := context.Background()
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	key := client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}
	// Someone replaces the token Secret with their own, then the pod goes.
	g.Expect(remote.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})).To(Succeed())
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	g.Expect(remote.Create(ctx, theirs)).To(Succeed())
	g.Expect(deletePod(ctx, r, pod("web", "builder"))).To(Succeed())
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	g.Expect(remote.Get(ctx, key, &corev1.Secret{})).To(Succeed(), "a Secret without the token labels is not Spillway's to delete")
}

func TestSyncChangedLeavesTokensNotDueAlone(t *testing.T) {
	g := NewWithT(t)
	r, remote := newTokenFixture()
	ctx := context.Background()
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	key := client.ObjectKey{Namespace: "liqo-demo-rome", Name: SecretName("builder")}
	before := &corev1.Secret{}
	g.Expect(remote.Get(ctx, key, before)).To(Succeed())
	r.renewAt[types.NamespacedName{Namespace: "liqo-demo", Name: "builder"}] = time.Now().Add(time.Hour) // not due
	g.Expect(r.syncChanged(ctx)).To(Succeed())
	after := &corev1.Secret{}
	g.Expect(remote.Get(ctx, key, after)).To(Succeed())
	g.Expect(after.ResourceVersion).To(Equal(before.ResourceVersion), "a token not due for renewal is not rewritten per pod event")
}

// listCounter counts the LISTs sent to the provider.
type listCounter struct {
	client.Client
	lists int
}

func (c *listCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c.lists++
	return c.Client.List(ctx, list, opts...)
}

func toolscacheTombstone(p *corev1.Pod) any {
	return toolscache.DeletedFinalStateUnknown{Key: p.Namespace + "/" + p.Name, Obj: p}
}
