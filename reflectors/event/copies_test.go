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

package event

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// writes counts what reaches the consumer's API server by verb.
type writes struct{ creates, patches int }

func (w *writes) total() int { return w.creates + w.patches }

// consumerWithCopies is a consumer API server holding stored, with the
// field index the API server keeps on reportingComponent, and a reflector
// for the peer milan whose writes are counted.
func consumerWithCopies(stored ...client.Object) (*Reflector, client.Client, *writes) {
	w := &writes{}
	api := fake.NewClientBuilder().WithObjects(stored...).
		WithIndex(&corev1.Event{}, "reportingComponent", func(o client.Object) []string {
			return []string{o.(*corev1.Event).ReportingController}
		}).Build()
	local := interceptor.NewClient(api, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w.creates++
			return c.Create(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			w.patches++
			return c.Patch(ctx, obj, patch, opts...)
		},
	})
	return &Reflector{Peer: reflection.Peer{RemoteClusterName: "milan"}, Local: local, Copies: api}, api, w
}

// milanCopy is the consumer's copy of providerEvent, reflected from milan.
func milanCopy() *corev1.Event {
	return LocalEvent(providerEvent(), localPod(), "milan")
}

func changed(want *corev1.Event) *corev1.Event {
	again := want.DeepCopy()
	again.Count, again.Message = want.Count+1, want.Message+" again"
	again.LastTimestamp = metav1.NewTime(want.LastTimestamp.Add(time.Minute))
	return again
}

func TestACopyListedOnceCostsNoWriteUntilItsEventChanges(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	want := milanCopy()
	r, api, w := consumerWithCopies(want.DeepCopy())
	g.Expect(r.listCopies(ctx, want.Namespace)).To(Succeed())

	g.Expect(r.write(ctx, want.DeepCopy())).To(Succeed())
	g.Expect(w.total()).To(BeZero(), "a restart writes no copy that already says what its event does")

	again := changed(want)
	g.Expect(r.write(ctx, again.DeepCopy())).To(Succeed())
	g.Expect(*w).To(Equal(writes{patches: 1}), "a change is one patch, with no read")

	stored := &corev1.Event{}
	g.Expect(api.Get(ctx, client.ObjectKeyFromObject(want), stored)).To(Succeed())
	g.Expect(stored.Count).To(Equal(again.Count))
	g.Expect(stored.Message).To(Equal(again.Message))
	g.Expect(stored.LastTimestamp.Equal(&again.LastTimestamp)).To(BeTrue())
	g.Expect(stored.InvolvedObject).To(Equal(want.InvolvedObject), "the patch leaves the rest of the copy")
	g.Expect(stored.Reason).To(Equal(want.Reason))
	g.Expect(stored.ReportingController).To(Equal(ReportingController))
	g.Expect(stored.FirstTimestamp.Equal(&want.FirstTimestamp)).To(BeTrue())

	g.Expect(r.write(ctx, again.DeepCopy())).To(Succeed())
	g.Expect(w.total()).To(Equal(1), "what was written is recorded")
}

func TestANewCopyIsCreatedAndRecorded(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	want := milanCopy()
	r, api, w := consumerWithCopies()
	g.Expect(r.listCopies(ctx, want.Namespace)).To(Succeed())

	g.Expect(r.write(ctx, want.DeepCopy())).To(Succeed())
	g.Expect(api.Get(ctx, client.ObjectKeyFromObject(want), &corev1.Event{})).To(Succeed())
	g.Expect(r.write(ctx, want.DeepCopy())).To(Succeed())
	g.Expect(*w).To(Equal(writes{creates: 1}))
}

func TestACopyDeletedSinceRecordedIsCreatedAgain(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	want := milanCopy()
	r, api, _ := consumerWithCopies(want.DeepCopy())
	g.Expect(r.listCopies(ctx, want.Namespace)).To(Succeed())
	g.Expect(api.Delete(ctx, want.DeepCopy())).To(Succeed())

	again := changed(want)
	g.Expect(r.write(ctx, again.DeepCopy())).To(Succeed())
	stored := &corev1.Event{}
	g.Expect(api.Get(ctx, client.ObjectKeyFromObject(want), stored)).To(Succeed())
	g.Expect(stored.Count).To(Equal(again.Count))
	g.Expect(stored.InvolvedObject).To(Equal(want.InvolvedObject), "created whole, not patched into a stub")
}

func TestACopyNoListSawIsPatchedNotLost(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	want := milanCopy()
	r, api, w := consumerWithCopies(want.DeepCopy())
	// No listCopies: the copy exists, but the reflector has no record.
	again := changed(want)
	g.Expect(r.write(ctx, again.DeepCopy())).To(Succeed())
	stored := &corev1.Event{}
	g.Expect(api.Get(ctx, client.ObjectKeyFromObject(want), stored)).To(Succeed())
	g.Expect(stored.Count).To(Equal(again.Count))
	g.Expect(r.write(ctx, again.DeepCopy())).To(Succeed())
	g.Expect(*w).To(Equal(writes{creates: 1, patches: 1}), "the refused create, the patch, then nothing")
}

func TestAListRealignsACopySomeoneChanged(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	want := milanCopy()
	r, api, w := consumerWithCopies(want.DeepCopy())
	g.Expect(r.listCopies(ctx, want.Namespace)).To(Succeed())

	edited := &corev1.Event{}
	g.Expect(api.Get(ctx, client.ObjectKeyFromObject(want), edited)).To(Succeed())
	edited.Message = "edited by hand"
	g.Expect(api.Update(ctx, edited)).To(Succeed())
	g.Expect(r.listCopies(ctx, want.Namespace)).To(Succeed())

	g.Expect(r.write(ctx, want.DeepCopy())).To(Succeed())
	stored := &corev1.Event{}
	g.Expect(api.Get(ctx, client.ObjectKeyFromObject(want), stored)).To(Succeed())
	g.Expect(stored.Message).To(Equal(want.Message))
	g.Expect(*w).To(Equal(writes{patches: 1}))
}

func TestTheListRecordsOnlyThisPeersCopies(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	mine := milanCopy()
	naples := LocalEvent(providerEvent(), localPod(), "naples")
	naples.Name = "web-0.18b"
	own := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: mine.Namespace, Name: "web-0.1"}, ReportingController: "default-scheduler"}
	r, _, _ := consumerWithCopies(mine, naples, own)
	g.Expect(r.listCopies(ctx, mine.Namespace)).To(Succeed())
	_, ok := r.copies.get(mine.Namespace, mine.Name)
	g.Expect(ok).To(BeTrue())
	_, ok = r.copies.get(naples.Namespace, naples.Name)
	g.Expect(ok).To(BeFalse(), "another provider's copy")
	_, ok = r.copies.get(own.Namespace, own.Name)
	g.Expect(ok).To(BeFalse(), "the consumer's own event")
}

func TestATwinIsNotWatchedWhileItsCopiesCannotBeListed(t *testing.T) {
	g := NewWithT(t)
	var listed atomic.Int32
	api := fake.NewClientBuilder().Build()
	failing := interceptor.NewClient(api, interceptor.Funcs{
		List: func(context.Context, client.WithWatch, client.ObjectList, ...client.ListOption) error {
			listed.Add(1)
			return errors.New("consumer API server unavailable")
		},
	})
	r := &Reflector{Copies: failing}
	tw := &twin{localNamespace: "apps", stop: make(chan struct{})}
	done := make(chan bool)
	go func() { done <- r.recordCopies(context.Background(), tw) }()
	g.Eventually(listed.Load).WithTimeout(5 * time.Second).Should(BeNumerically(">=", 1))
	close(tw.stop)
	g.Eventually(done).WithTimeout(5*time.Second).Should(Receive(BeFalse()), "a twin dropped while listing is never watched")
}
