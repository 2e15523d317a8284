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

package reflection

import (
	"context"
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// fakeLocal serves reads from a fake client; sync never asks for informers.
type fakeLocal struct{ client.Client }

func (fakeLocal) GetInformer(context.Context, client.Object, ...cache.InformerGetOption) (cache.Informer, error) {
	return nil, errors.New("no informers in unit tests")
}

// configMaps is a minimal verbatim kind, so the engine is tested apart from
// any real type's mutations.
var configMaps = Kind{
	Name:    "configmap",
	New:     func() client.Object { return &corev1.ConfigMap{} },
	NewList: func() client.ObjectList { return &corev1.ConfigMapList{} },
	Translate: func(o client.Object, ns string, p *Peer) client.Object {
		l := o.(*corev1.ConfigMap)
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: l.Name, Namespace: ns, Labels: CopyLabels(l, p)}, Data: l.Data}
	},
	Merge: func(d, e client.Object) bool {
		dc, ec := d.(*corev1.ConfigMap), e.(*corev1.ConfigMap)
		changed := MergeMeta(d, e)
		if dc.Data["k"] != ec.Data["k"] {
			ec.Data, changed = dc.Data, true
		}
		return changed
	},
}

type fixture struct {
	local, remote client.Client
	r             *Reflector
}

func newFixture(local []client.Object, remote ...client.Object) *fixture {
	f := &fixture{
		local:  fake.NewClientBuilder().WithObjects(local...).Build(),
		remote: fake.NewClientBuilder().WithObjects(remote...).Build(),
	}
	peer := Peer{LocalClusterID: "rome-id", RemoteClusterID: "milan-id", RemoteClusterName: "milan", Remote: f.remote,
		Namespaces: func(_ context.Context, ns string) (string, error) {
			if ns == "offloaded" {
				return "offloaded-rome", nil
			}
			return "", errors.New("not offloaded")
		}}
	f.r = New(configMaps, peer, fakeLocal{f.local}, Options{Workers: 1})
	return f
}

func cm(ns, name, value string, mutate ...func(*corev1.ConfigMap)) *corev1.ConfigMap {
	c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": value}}
	for _, m := range mutate {
		m(c)
	}
	return c
}

func copyOf(c *corev1.ConfigMap) {
	c.Labels = map[string]string{sharingv1alpha1.OriginClusterIDLabel: "rome-id", DestinationClusterIDLabel: "milan-id"}
}

func (f *fixture) remoteCopy(g Gomega) *corev1.ConfigMap {
	got := &corev1.ConfigMap{}
	g.Expect(f.remote.Get(context.Background(), types.NamespacedName{Namespace: "offloaded-rome", Name: "app"}, got)).To(Succeed())
	return got
}

func key(ns string) types.NamespacedName { return types.NamespacedName{Namespace: ns, Name: "app"} }

func TestSyncCreatesTheCopyLabelledWithOriginAndDestination(t *testing.T) {
	g := NewWithT(t)
	f := newFixture([]client.Object{cm("offloaded", "app", "v1")})
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	got := f.remoteCopy(g)
	g.Expect(got.Data).To(HaveKeyWithValue("k", "v1"))
	g.Expect(got.Labels).To(HaveKeyWithValue(sharingv1alpha1.OriginClusterIDLabel, "rome-id"))
	g.Expect(got.Labels).To(HaveKeyWithValue(DestinationClusterIDLabel, "milan-id"))
	g.Expect(f.r.reflected).To(HaveKey(key("offloaded")))
}

func TestSyncRealignsAChangedCopy(t *testing.T) {
	g := NewWithT(t)
	f := newFixture([]client.Object{cm("offloaded", "app", "v2")}, cm("offloaded-rome", "app", "edited on milan", copyOf))
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "v2"))
}

func TestSyncDeletesTheCopyWhenTheOriginalIsGone(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(nil, cm("offloaded-rome", "app", "v1", copyOf))
	f.r.reflected[key("offloaded")] = true
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	err := f.remote.Get(context.Background(), types.NamespacedName{Namespace: "offloaded-rome", Name: "app"}, &corev1.ConfigMap{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
	g.Expect(f.r.reflected).NotTo(HaveKey(key("offloaded")))
}

func TestSyncDeletesTheCopyOfAnObjectThatOptsOut(t *testing.T) {
	g := NewWithT(t)
	skip := func(c *corev1.ConfigMap) { c.Annotations = map[string]string{"liqo.io/skip-reflection": ""} }
	f := newFixture([]client.Object{cm("offloaded", "app", "v1", skip)}, cm("offloaded-rome", "app", "v1", copyOf))
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	err := f.remote.Get(context.Background(), types.NamespacedName{Namespace: "offloaded-rome", Name: "app"}, &corev1.ConfigMap{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue())
}

func TestSyncNeverOverwritesNorDeletesAProviderObject(t *testing.T) {
	g := NewWithT(t)
	f := newFixture([]client.Object{cm("offloaded", "app", "v1")}, cm("offloaded-rome", "app", "milan's own"))
	err := f.r.sync(context.Background(), key("offloaded"))
	g.Expect(errors.Is(err, errNotOurs)).To(BeTrue())
	g.Expect(err.Error()).To(ContainSubstring("offloaded-rome/app on milan exists and was not reflected"))
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "milan's own"))

	g.Expect(f.local.Delete(context.Background(), cm("offloaded", "app", ""))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "milan's own"))
}

func TestSyncIgnoresNamespacesNotOffloadedToThePeer(t *testing.T) {
	g := NewWithT(t)
	f := newFixture([]client.Object{cm("local-only", "app", "v1")})
	g.Expect(f.r.sync(context.Background(), key("local-only"))).To(Succeed())
	list := &corev1.ConfigMapList{}
	g.Expect(f.remote.List(context.Background(), list)).To(Succeed())
	g.Expect(list.Items).To(BeEmpty())
}

func TestSyncDoesNotCopyAnotherClustersCopy(t *testing.T) {
	g := NewWithT(t)
	reflectedHere := func(c *corev1.ConfigMap) { c.Labels = map[string]string{DestinationClusterIDLabel: "rome-id"} }
	f := newFixture([]client.Object{cm("offloaded", "app", "v1", reflectedHere)})
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	list := &corev1.ConfigMapList{}
	g.Expect(f.remote.List(context.Background(), list)).To(Succeed())
	g.Expect(list.Items).To(BeEmpty())
}

func TestEnqueueNamespaceQueuesOriginalsAndOrphanedCopies(t *testing.T) {
	g := NewWithT(t)
	orphan := cm("offloaded-rome", "gone", "v1", copyOf)
	f := newFixture([]client.Object{cm("offloaded", "app", "v1")}, orphan, cm("offloaded-rome", "milans", "v1"))
	g.Expect(f.r.enqueueNamespace(context.Background(), "offloaded")).To(Succeed())
	g.Expect(f.r.queue.Len()).To(Equal(2), "app and the orphaned copy gone; never milan's own object")
}

// A change seen by the watch is handed out before the keys a namespace pass
// queued earlier, whether or not the pass had queued its key too: a resync
// must not delay the changes made while it runs.
func TestAChangeGoesBeforeANamespacePass(t *testing.T) {
	g := NewWithT(t)
	var locals []client.Object
	for i := range 50 {
		locals = append(locals, cm("offloaded", fmt.Sprintf("app-%02d", i), "v1"))
	}
	f := newFixture(locals)
	defer f.r.queue.ShutDown()
	g.Expect(f.r.enqueueNamespace(context.Background(), "offloaded")).To(Succeed())
	f.r.enqueueObject(cm("offloaded", "app-49", "v2"))
	f.r.enqueueObject(cm("offloaded", "new", "v1"))
	g.Expect(f.r.queue.Len()).To(Equal(51), "app-49 is queued once")
	var order []string
	for range 3 {
		k, shutdown := f.r.queue.Get()
		g.Expect(shutdown).To(BeFalse())
		order = append(order, k.Name)
		f.r.queue.Done(k)
	}
	g.Expect(order[:2]).To(Equal([]string{"app-49", "new"}), "the changes, in the order they came")
	g.Expect(order[2]).To(HavePrefix("app-"), "then the pass")
}

// A broker's twin holds its consumer's copies; they go on to its providers,
// and never back to the consumer.
func TestSyncRelaysAConsumersCopyFromItsTwin(t *testing.T) {
	// rome (this cluster) is paris's broker: "offloaded" is paris's twin.
	fromParis := func(c *corev1.ConfigMap) {
		c.Labels = map[string]string{sharingv1alpha1.OriginClusterIDLabel: "paris-id", DestinationClusterIDLabel: "rome-id"}
	}
	twinOf := func(id string) *corev1.Namespace {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "offloaded", Labels: map[string]string{sharingv1alpha1.TwinNamespaceLabel: id}}}
	}
	for _, tc := range []struct {
		name    string
		objs    []client.Object
		relayed bool
	}{
		{name: "paris's copy in paris's twin goes on", objs: []client.Object{twinOf("paris-id"), cm("offloaded", "app", "v1", fromParis)}, relayed: true},
		{name: "a copy in another's twin does not", objs: []client.Object{twinOf("venice-id"), cm("offloaded", "app", "v1", fromParis)}},
		{name: "a copy outside a twin does not", objs: []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "offloaded"}}, cm("offloaded", "app", "v1", fromParis)}},
		{name: "a copy never goes back where it came from", objs: []client.Object{twinOf("milan-id"), cm("offloaded", "app", "v1", func(c *corev1.ConfigMap) {
			c.Labels = map[string]string{sharingv1alpha1.OriginClusterIDLabel: "milan-id", DestinationClusterIDLabel: "rome-id"}
		})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			f := newFixture(tc.objs)
			g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
			list := &corev1.ConfigMapList{}
			g.Expect(f.remote.List(context.Background(), list)).To(Succeed())
			if !tc.relayed {
				g.Expect(list.Items).To(BeEmpty())
				return
			}
			got := f.remoteCopy(g)
			g.Expect(got.Data).To(HaveKeyWithValue("k", "v1"))
			g.Expect(got.Labels).To(HaveKeyWithValue(sharingv1alpha1.OriginClusterIDLabel, "rome-id"))
			g.Expect(got.Labels).To(HaveKeyWithValue(DestinationClusterIDLabel, "milan-id"))
		})
	}
}
