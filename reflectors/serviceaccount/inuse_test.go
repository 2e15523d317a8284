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
	"fmt"
	"math/rand/v2"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestInUseMatchesTheListAfterAnyHistory plays random pod events (adds,
// binds, moves, terminations, ServiceAccount and automount changes,
// deletions) through track, the way the informer hands them over, and
// after each compares the counted set with Needed over the pods left.
func TestInUseMatchesTheListAfterAnyHistory(t *testing.T) {
	g := NewWithT(t)
	const node = "liqo-milan"
	rng := rand.New(rand.NewPCG(3, 5))
	random := func(name string) *corev1.Pod {
		p := pod(name, []string{"", "builder", "runner"}[rng.IntN(3)])
		p.Spec.NodeName = []string{node, node, "", "worker-1"}[rng.IntN(4)]
		if rng.IntN(6) == 0 {
			p.Spec.AutomountServiceAccountToken = ptr.To(false)
		}
		if rng.IntN(8) == 0 {
			p.DeletionTimestamp = ptr.To(metav1.Now())
		}
		return p
	}
	var u serviceAccountsInUse
	live := map[string]*corev1.Pod{}
	for step := range 3000 {
		name := fmt.Sprintf("p%d", rng.IntN(40))
		old := live[name]
		if old != nil && rng.IntN(4) == 0 {
			u.track(node, old, nil)
			delete(live, name)
		} else {
			p := random(name)
			u.track(node, old, p)
			live[name] = p
		}
		pods := make([]corev1.Pod, 0, len(live))
		for _, p := range live {
			if p.Spec.NodeName == node { // what the cache's spec.nodeName index returns
				pods = append(pods, *p)
			}
		}
		g.Expect(u.set()).To(Equal(Needed(pods)), "step %d", step)
	}
}

// A pod event's pass reads the counts, not the node's pods: listing them
// per arrival was O(pods) per pod.
func TestSyncChangedDoesNotListTheNodesPods(t *testing.T) {
	g := NewWithT(t)
	r, _ := newTokenFixture()
	counting := &localListCounter{Client: r.Local}
	r.Local = counting
	g.Expect(r.syncChanged(context.Background())).To(Succeed())
	g.Expect(counting.lists).To(BeZero())
	g.Expect(r.renewAt).To(HaveLen(1), "the token of the fixture's pod was written")
}

type localListCounter struct {
	client.Client
	lists int
}

func (c *localListCounter) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if _, ok := list.(*corev1.PodList); ok {
		c.lists++
	}
	return c.Client.List(ctx, list, opts...)
}
