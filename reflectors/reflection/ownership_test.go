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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// tokenLike marks copies another reflector owns, as the ServiceAccount
// tokens are among Secrets.
func tokenLike(c *corev1.ConfigMap) {
	copyOf(c)
	c.Labels["owned-elsewhere"] = "true"
}

func ownedElsewhere(f *fixture) {
	f.r.kind.OwnedElsewhere = func(o client.Object) bool { return o.GetLabels()["owned-elsewhere"] == "true" }
}

func TestSyncNeverDeletesACopyOwnedByAnotherReflector(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(nil, cm("offloaded-rome", "app", "token", tokenLike))
	ownedElsewhere(f)
	g.Expect(f.r.enqueueNamespace(context.Background(), "offloaded")).To(Succeed())
	g.Expect(f.r.queue.Len()).To(Equal(1), "listed with the copies")
	g.Expect(f.r.sync(context.Background(), key("offloaded"))).To(Succeed())
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "token"), "no local original, and still not collected")
}

func TestSyncNeverOverwritesACopyOwnedByAnotherReflector(t *testing.T) {
	g := NewWithT(t)
	f := newFixture([]client.Object{cm("offloaded", "app", "user's")}, cm("offloaded-rome", "app", "token", tokenLike))
	ownedElsewhere(f)
	err := f.r.sync(context.Background(), key("offloaded"))
	g.Expect(errors.Is(err, errNotOurs)).To(BeTrue())
	g.Expect(f.remoteCopy(g).Data).To(HaveKeyWithValue("k", "token"))
}

func TestAWorkerRecoversFromAPanicAndGoesOn(t *testing.T) {
	g := NewWithT(t)
	f := newFixture([]client.Object{cm("offloaded", "boom", "v1"), cm("offloaded", "app", "v1")})
	translate := f.r.kind.Translate
	f.r.kind.Translate = func(o client.Object, ns string, p *Peer) client.Object {
		if o.GetName() == "boom" {
			panic("a bug reached by one object's content")
		}
		return translate(o, ns, p)
	}
	before := testutil.ToFloat64(panicCounter.WithLabelValues("configmap", "milan-id"))
	f.r.queue.Add(types.NamespacedName{Namespace: "offloaded", Name: "boom"})
	f.r.queue.Add(key("offloaded"))
	done := make(chan struct{})
	go func() { defer close(done); f.r.work(context.Background()) }()
	g.Eventually(func(g Gomega) { f.remoteCopy(g) }).WithTimeout(10*time.Second).Should(Succeed(), "the next object is reflected")
	g.Expect(testutil.ToFloat64(panicCounter.WithLabelValues("configmap", "milan-id"))).To(Equal(before + 1))
	f.r.queue.ShutDown()
	g.Eventually(done).WithTimeout(10 * time.Second).Should(BeClosed())
}

func TestRecoveringReturnsTheAttemptsOwnError(t *testing.T) {
	g := NewWithT(t)
	want := errors.New("remote down")
	g.Expect(Recovering("configmap", "milan-id", "ns/x", func() error { return want })).To(MatchError(want))
	err := Recovering("configmap", "milan-id", "ns/x", func() error { panic("index out of range") })
	g.Expect(errors.Is(err, ErrPanicked)).To(BeTrue())
	g.Expect(err.Error()).To(ContainSubstring("configmap ns/x: index out of range"))
}
