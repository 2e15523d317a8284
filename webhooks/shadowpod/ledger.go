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

package shadowpod

import (
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

// reservationTTL bounds how long an admitted ShadowPod the cache does not
// show is counted anyway. The cache shows a created object within
// milliseconds; a reservation lives on only when the create failed after
// admission (a name taken, another webhook's denial), and then it holds room
// for nothing, briefly: erring on the side of the offer.
const reservationTTL = 30 * time.Second

// ledger makes quota decisions safe against concurrent creates. The webhook
// reads a cache, and the API server stores an object only after admission
// answers, so two creates admitted together would each see the other
// missing and both fit where only one does. Decisions for one consumer are
// therefore taken one at a time, and each admitted ShadowPod is counted as a
// reservation until the cache shows it or reservationTTL passes.
//
// It is correct for one manager replica, which is how Spillway runs (leader
// election or not, every replica would serve webhooks, each with its own
// ledger): with several replicas serving the webhook, concurrent creates
// answered by different replicas could overshoot the offer by what is in
// flight.
type ledger struct {
	mu sync.Mutex
	// locks serializes decisions per consumer; consumers never wait on each other.
	locks map[string]*sync.Mutex
	// reserved holds, per consumer, the requests of admitted ShadowPods by admittedKey.
	reserved map[string]map[string]reservation
	// now is time.Now; tests move it.
	now func() time.Time
}

type reservation struct {
	requests corev1.ResourceList
	expires  time.Time
}

// admittedKey identifies a ShadowPod across admission and the cache: its UID,
// which the API server assigns before validating admission; namespace/name
// for an object without one (a unit test's).
func admittedKey(sp *virtualkubeletv1alpha1.ShadowPod) string {
	if sp.UID != "" {
		return string(sp.UID)
	}
	return sp.Namespace + "/" + sp.Name
}

// lock takes consumer's decision lock and returns its release.
func (l *ledger) lock(consumer string) func() {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*sync.Mutex{}
	}
	m := l.locks[consumer]
	if m == nil {
		m = &sync.Mutex{}
		l.locks[consumer] = m
	}
	l.mu.Unlock()
	m.Lock()
	return m.Unlock
}

func (l *ledger) clock() time.Time {
	if l.now != nil {
		return l.now()
	}
	return time.Now()
}

// reserve counts an admitted ShadowPod until the cache shows it.
func (l *ledger) reserve(consumer, key string, requests corev1.ResourceList) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reserved == nil {
		l.reserved = map[string]map[string]reservation{}
	}
	if l.reserved[consumer] == nil {
		l.reserved[consumer] = map[string]reservation{}
	}
	l.reserved[consumer][key] = reservation{requests: requests, expires: l.clock().Add(reservationTTL)}
}

// pending sums consumer's reservations that the count does not show yet
// (seen tells what it shows; nil: nothing), but except, and forgets the ones
// it shows or that expired. seen must answer for the very count the result
// is added to (Usage.SumWithUnseen), or a ShadowPod can fall between them.
func (l *ledger) pending(consumer string, seen func(key string) bool, except string) corev1.ResourceList {
	l.mu.Lock()
	defer l.mu.Unlock()
	sum := corev1.ResourceList{}
	now := l.clock()
	for key, r := range l.reserved[consumer] {
		if (seen != nil && seen(key)) || now.After(r.expires) {
			delete(l.reserved[consumer], key)
			continue
		}
		if key != except {
			policies.AddRequests(sum, r.requests)
		}
	}
	if len(l.reserved[consumer]) == 0 {
		// No entry kept for a consumer with nothing reserved: consumers
		// come and go for as long as the provider runs.
		delete(l.reserved, consumer)
	}
	return sum
}
