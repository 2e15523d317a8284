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
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kfake "k8s.io/client-go/kubernetes/fake"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// watchedFixture is a fixture whose peer also has a clientset to watch the
// copies with. The clientset and the remote client hold the same objects
// (same resourceVersion), as one provider would; gets counts the remote
// client's GETs.
type watchedFixture struct {
	*fixture
	gets atomic.Int32
}

func newWatchedFixture(t *testing.T, local []client.Object, remote ...client.Object) *watchedFixture {
	t.Helper()
	f := &watchedFixture{fixture: newFixture(local)}
	watched := make([]runtime.Object, 0, len(remote))
	for _, o := range remote {
		o.SetResourceVersion("999")
		watched = append(watched, o.DeepCopyObject())
	}
	f.remote = fake.NewClientBuilder().WithObjects(remote...).WithInterceptorFuncs(interceptor.Funcs{
		Get: func(ctx context.Context, c client.WithWatch, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
			f.gets.Add(1)
			return c.Get(ctx, key, obj, opts...)
		}}).Build()
	peer := f.r.peer
	peer.Remote, peer.Provider = f.remote, kfake.NewClientset(watched...)
	f.r = New(configMaps, peer, fakeLocal{f.local}, Options{Workers: 1})
	t.Cleanup(f.r.copies.stop)
	return f
}

// synced syncs once, which starts the watch of the twin, and waits until
// the watch has listed it.
func (f *watchedFixture) synced(t *testing.T) {
	t.Helper()
	g := NewWithT(t)
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Eventually(func() bool { return f.r.copies.synced("offloaded", "offloaded-rome") != nil }, 5*time.Second, 10*time.Millisecond).To(BeTrue())
	f.gets.Store(0)
}

func TestSyncReadsAnExistingCopyFromTheWatchNotTheProvider(t *testing.T) {
	g := NewWithT(t)
	// The copy matches: the first sync writes nothing, and the watch and the
	// provider agree on its resourceVersion.
	f := newWatchedFixture(t, []client.Object{cm("offloaded", "app", "v2")}, cm("offloaded-rome", "app", "v2", copyOf))
	f.synced(t)
	g.Expect(f.local.Update(context.Background(), cm("offloaded", "app", "v3", func(c *corev1.ConfigMap) {
		c.ResourceVersion = f.localVersion(g)
	}))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	// Before the watch, every sync asked the provider for the copy first.
	g.Expect(f.gets.Load()).To(BeZero(), "GETs of the copy on the provider")
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "v3"))
}

func TestSyncCreatesWithoutAskingWhenTheWatchHasNoCopy(t *testing.T) {
	g := NewWithT(t)
	f := newWatchedFixture(t, []client.Object{cm("offloaded", "other", "v1")})
	f.synced(t)
	g.Expect(f.local.Create(context.Background(), cm("offloaded", "app", "v1"))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Expect(f.gets.Load()).To(BeZero(), "GETs of the copy on the provider")
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "v1"))
}

func TestSyncAsksTheProviderWhenTheNameIsTakenByAnObjectThatIsNotACopy(t *testing.T) {
	g := NewWithT(t)
	// The provider's own ConfigMap carries no copy labels: the watch never
	// holds it, the create is refused, and only the provider can say why.
	f := newWatchedFixture(t, []client.Object{cm("offloaded", "app", "v1")}, cm("offloaded-rome", "app", "milan's own"))
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(MatchError(errNotOurs))
	g.Eventually(func() bool { return f.r.copies.synced("offloaded", "offloaded-rome") != nil }, 5*time.Second, 10*time.Millisecond).To(BeTrue())
	f.gets.Store(0)
	err := f.r.sync(context.Background(), key("offloaded"))
	g.Expect(errors.Is(err, errNotOurs)).To(BeTrue(), "got %v", err)
	g.Expect(f.gets.Load()).To(BeNumerically("==", 1), "one GET after the refused create")
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "milan's own"))
}

func TestSyncRetriesFromTheProviderWhenTheWatchIsBehind(t *testing.T) {
	g := NewWithT(t)
	f := newWatchedFixture(t, []client.Object{cm("offloaded", "app", "v2")}, cm("offloaded-rome", "app", "v1", copyOf))
	f.synced(t)
	// The provider's copy moves on without the watch seeing it: the update
	// from the watch's resourceVersion conflicts, and the provider's answer wins.
	cur := f.remoteCopy(g)
	cur.Data = map[string]string{"k": "edited on milan"}
	g.Expect(f.remote.Update(context.Background(), cur)).To(Succeed())
	f.gets.Store(0)
	g.Expect(f.local.Update(context.Background(), cm("offloaded", "app", "v3", func(c *corev1.ConfigMap) {
		c.ResourceVersion = f.localVersion(g)
	}))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "v3"))
}

func (f *watchedFixture) localVersion(g Gomega) string {
	cur := &corev1.ConfigMap{}
	g.Expect(f.local.Get(context.Background(), key("offloaded"), cur)).To(Succeed())
	return cur.ResourceVersion
}

func TestSyncDeletesACopyTheWatchHasNotSeenYet(t *testing.T) {
	g := NewWithT(t)
	f := newWatchedFixture(t, []client.Object{cm("offloaded", "other", "v1")})
	f.synced(t)
	g.Expect(f.local.Create(context.Background(), cm("offloaded", "app", "v1"))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	// The watch (a separate store here) never sees the copy just created:
	// the deletion must not take its word that there is nothing to delete.
	g.Expect(f.local.Delete(context.Background(), cm("offloaded", "app", ""))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	err := f.remote.Get(context.Background(), types.NamespacedName{Namespace: "offloaded-rome", Name: "app"}, &corev1.ConfigMap{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "the copy is still on the provider: %v", err)
}

func TestSyncRecreatesACopyDeletedOnTheProviderThatTheWatchStillHolds(t *testing.T) {
	g := NewWithT(t)
	f := newWatchedFixture(t, []client.Object{cm("offloaded", "app", "v2")}, cm("offloaded-rome", "app", "v1", copyOf))
	g.Eventually(func() bool {
		f.r.copies.watch("offloaded", "offloaded-rome")
		return f.r.copies.synced("offloaded", "offloaded-rome") != nil
	}, 5*time.Second, 10*time.Millisecond).To(BeTrue())
	g.Expect(f.remote.Delete(context.Background(), cm("offloaded-rome", "app", ""))).To(Succeed())
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "v2"))
}

func TestTheWatchOfAnUnoffloadedNamespaceStops(t *testing.T) {
	g := NewWithT(t)
	f := newWatchedFixture(t, nil)
	f.r.copies.watch("offloaded", "offloaded-rome")
	f.r.copies.watch("gone", "gone-rome")
	f.r.copies.watch("deleted", "deleted-rome")
	f.r.copies.retain(map[string]bool{"offloaded": true, "deleted": true})
	f.r.forgetNamespaceOf(toolscache.DeletedFinalStateUnknown{Obj: cm("deleted", "offloading", "")})
	g.Expect(f.r.copies.twins).To(HaveLen(1))
	g.Expect(f.r.copies.twins).To(HaveKey("offloaded"))
	// A twin renamed replaces its watch.
	f.r.copies.watch("offloaded", "offloaded-rome-2")
	g.Expect(f.r.copies.twins["offloaded"].remoteNs).To(Equal("offloaded-rome-2"))
}
