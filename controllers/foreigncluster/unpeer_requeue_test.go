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
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

func TestUnpeeringRequeue(t *testing.T) {
	for _, tc := range []struct {
		name     string
		interval time.Duration
		u        unpeering
		want     time.Duration
	}{
		{name: "pods to evict: polled, not probed", interval: 10 * time.Second, u: unpeering{podsToEvict: 2}, want: unpeeringPoll},
		{name: "twins held by the provider", interval: 10 * time.Second, u: unpeering{twinRequests: []string{"a"}}, want: unpeeringPoll},
		{name: "the node being deleted", interval: time.Minute, u: unpeering{}, want: unpeeringPoll},
		{name: "a shorter interval is kept", interval: time.Second, u: unpeering{podsToEvict: 1}, want: time.Second},
		{name: "a provider that does not answer is probed at the interval", interval: 10 * time.Second,
			u: unpeering{providerErr: errors.New("connection refused")}, want: 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(unpeeringRequeue(tc.interval, tc.u)).To(Equal(tc.want))
		})
	}
}

// A prune waits on the provider to remove the twins: the next pass comes
// after unpeeringPoll, not after the peering's 10 s interval.
func TestReconcileDeletePollsAnUnpeeringInProgress(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	holdFinalizedConfigMaps(rt.provider)
	_, err := rt.provider.CoreV1().ConfigMaps(tenant).Create(ctx, twinRequest("liqo-demo-rome-x1", true), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	r, c := deletedForeignCluster(g, rt)

	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "milan"}})
	g.Expect(err).NotTo(HaveOccurred())
	fc := &discoveryv1alpha1.ForeignCluster{}
	g.Expect(c.Get(ctx, client.ObjectKey{Name: "milan"}, fc)).To(Succeed())
	g.Expect(readyOf(fc).Reason).To(Equal(ReasonUnpeering))
	g.Expect(fc.GetRequeueAfter()).To(Equal(discoveryv1alpha1.DefaultInterval))
	g.Expect(res.RequeueAfter).To(Equal(unpeeringPoll))
}

// While the provider does not answer, the unpeering waits at the interval.
func TestReconcileDeleteProbesAnUnansweringProviderAtTheInterval(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	rt := newFakeRuntime()
	_, err := rt.provider.CoreV1().ConfigMaps(tenant).Create(ctx, twinRequest("liqo-demo-rome-x1", true), metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	rt.provider.PrependReactor("*", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("dial tcp 127.0.0.1:17022: connect: connection refused")
	})
	r, _ := deletedForeignCluster(g, rt)

	res, err := r.Reconcile(ctx, ctrl.Request{NamespacedName: client.ObjectKey{Name: "milan"}})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(discoveryv1alpha1.DefaultInterval))
}
