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
	"encoding/json"
	"hash/maphash"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/reflectors/reflection"
)

// The reflector does not cache its copies. It keeps, per copy, the three
// fields a provider event changes (copyState), learnt from its own writes
// and from a paginated list of each twin's namespace: when the twin is
// first watched, so a restart does not write every copy again, and at
// every resync, which realigns copies someone changed or deleted. A cache
// held every copy decoded, with its key and its watch, next to the
// provider's event: about 1 KB per offloaded pod for as long as the Event
// lives, an hour past the pod's end (issue 17, target 3, lever 29). A
// copyState is 24 bytes.

// copyPageSize bounds what one page of the list of copies holds decoded.
const copyPageSize = 500

// copyState is what a copy says that a provider event can change.
type copyState struct {
	count int32
	// last is LastTimestamp in Unix seconds: an Event's timestamps are
	// stored to the second.
	last    int64
	message uint64 // the message's hash
}

// copyRecords is what the reflector knows its copies say, by local
// namespace and name. A missing entry means unknown, not absent.
type copyRecords struct {
	mu   sync.Mutex
	byNs map[string]map[string]copyState
}

// messageSeed keys the messages' hashes, which live only in this process.
var messageSeed = maphash.MakeSeed()

func (c *copyRecords) stateOf(e *corev1.Event) copyState {
	return copyState{count: e.Count, last: e.LastTimestamp.Unix(), message: maphash.String(messageSeed, e.Message)}
}

func (c *copyRecords) get(ns, name string) (copyState, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.byNs[ns][name]
	return s, ok
}

func (c *copyRecords) set(e *corev1.Event) {
	s := c.stateOf(e)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byNs == nil {
		c.byNs = map[string]map[string]copyState{}
	}
	if c.byNs[e.Namespace] == nil {
		c.byNs[e.Namespace] = map[string]copyState{}
	}
	c.byNs[e.Namespace][e.Name] = s
}

func (c *copyRecords) forget(ns, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byNs[ns], name)
}

// replace makes ns's records what a list of its copies found. A write that
// lands between the list and this costs at most one more write of that
// copy: its record is then older than the copy, and differs.
func (c *copyRecords) replace(ns string, found map[string]copyState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byNs == nil {
		c.byNs = map[string]map[string]copyState{}
	}
	c.byNs[ns] = found
}

func (c *copyRecords) drop(ns string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.byNs, ns)
}

// listCopies records what this peer's copies in the local namespace ns
// say, page by page, from the API server.
func (r *Reflector) listCopies(ctx context.Context, ns string) error {
	found := map[string]copyState{}
	opts := []client.ListOption{client.InNamespace(ns), client.MatchingFieldsSelector{Selector: CopiesSelector()}, client.Limit(copyPageSize)}
	for cont := ""; ; {
		page := &corev1.EventList{}
		if err := r.Copies.List(ctx, page, append(opts, client.Continue(cont))...); err != nil {
			return err
		}
		for i := range page.Items {
			// Copies of other providers' events share the namespace and
			// the reporting controller.
			if page.Items[i].ReportingInstance == r.Peer.RemoteClusterName {
				found[page.Items[i].Name] = r.copies.stateOf(&page.Items[i])
			}
		}
		if cont = page.Continue; cont == "" {
			break
		}
	}
	r.copies.replace(ns, found)
	return nil
}

// write makes the copy say what want does, with no write when its record
// already does. A copy without a record is created; one that exists
// anyway, or whose record differs, gets the three fields a provider event
// changes, by a merge patch, which needs no read first.
func (r *Reflector) write(ctx context.Context, want *corev1.Event) error {
	known, recorded := r.copies.get(want.Namespace, want.Name)
	if recorded && known == r.copies.stateOf(want) {
		return nil
	}
	if !recorded {
		err := r.create(ctx, want)
		if !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	err := r.patch(ctx, want)
	if apierrors.IsNotFound(err) { // expired, or deleted, since recorded
		r.copies.forget(want.Namespace, want.Name)
		return r.create(ctx, want)
	}
	return err
}

func (r *Reflector) create(ctx context.Context, want *corev1.Event) error {
	if err := r.Local.Create(ctx, want.DeepCopy(), client.FieldOwner(reflection.FieldOwner)); err != nil {
		return err
	}
	r.copies.set(want)
	return nil
}

// copyChange is the merge patch of what a provider event changes.
type copyChange struct {
	Count         int32       `json:"count"`
	Message       string      `json:"message"`
	LastTimestamp metav1.Time `json:"lastTimestamp"`
}

func (r *Reflector) patch(ctx context.Context, want *corev1.Event) error {
	body, err := json.Marshal(copyChange{Count: want.Count, Message: want.Message, LastTimestamp: want.LastTimestamp})
	if err != nil {
		return err
	}
	target := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: want.Namespace, Name: want.Name}}
	if err := r.Local.Patch(ctx, target, client.RawPatch(types.MergePatchType, body), client.FieldOwner(reflection.FieldOwner)); err != nil {
		return err
	}
	r.copies.set(want)
	return nil
}
