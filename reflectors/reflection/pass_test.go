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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
)

func TestAResyncPassIsSpreadOverHalfThePeriod(t *testing.T) {
	g := NewWithT(t)
	g.Expect(passRate(100_000, 5*time.Minute)).To(BeNumerically("~", 100_000/150.0, 0.01), "over 150 s")
	g.Expect(passRate(10_000, 5*time.Minute)).To(Equal(rate.Limit(minPassRate)), "a small pass is not drawn out")
	g.Expect(passRate(0, 5*time.Minute)).To(Equal(rate.Limit(minPassRate)))
	g.Expect(passRate(10, 0)).To(Equal(rate.Inf), "no period, no pace")
}

// countingWaiter records how many keys were queued each time the pass asked
// to go on, and stops the pass after stopAfter waits.
type countingWaiter struct {
	r         *Reflector
	queued    []int
	stopAfter int
}

func (w *countingWaiter) Wait(context.Context) error {
	if len(w.queued) == w.stopAfter {
		return context.Canceled
	}
	w.queued = append(w.queued, w.r.queue.Len())
	return nil
}

func TestAPaceQueuesOneKeyAtATimeAndStopsWithItsContext(t *testing.T) {
	g := NewWithT(t)
	f := newFixture(nil)
	defer f.r.queue.ShutDown()
	var keys []types.NamespacedName
	for i := range 5 {
		keys = append(keys, types.NamespacedName{Namespace: "offloaded", Name: fmt.Sprintf("app-%d", i)})
	}
	w := &countingWaiter{r: f.r, stopAfter: 3}
	f.r.pace(context.Background(), keys, w)
	g.Expect(w.queued).To(Equal([]int{0, 1, 2}), "each key waits for the pace")
	g.Expect(f.r.queue.Len()).To(Equal(3), "the rest of the pass is dropped with its context")
}
