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
	"encoding/json"
	"sync"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// lastWrites remembers, per ShadowPod, the last status this controller
// patched and the status that patch replaced. A reconcile that starts before
// the informer has delivered the controller's own patch (the pod's creation
// event follows the create within milliseconds, ten workers run at once)
// reads the replaced status from the cache, computes the status already
// written, and would send it again: the repeated writes that made 2.37 status
// patches per pod in make bench (docs/performance.md, lever 2).
type lastWrites struct {
	mu sync.Mutex
	by map[types.NamespacedName]statusWrite
}

// statusWrite is one status patch: of which ShadowPod, from what, to what.
type statusWrite struct {
	uid           types.UID
	replaced, set virtualkubeletv1alpha1.ShadowPodStatus
}

// echoes reports that writing want over cached would repeat the last patch
// this controller made to the ShadowPod: the cache still shows what that
// patch replaced and want says what it set. A status anyone else wrote since
// differs from replaced, and is overwritten as before.
func (l *lastWrites) echoes(key types.NamespacedName, uid types.UID, cached, want virtualkubeletv1alpha1.ShadowPodStatus) bool {
	l.mu.Lock()
	last, ok := l.by[key]
	l.mu.Unlock()
	return ok && last.uid == uid && sameReport(last.replaced, cached) && sameReport(last.set, want)
}

func (l *lastWrites) record(key types.NamespacedName, uid types.UID, replaced, set virtualkubeletv1alpha1.ShadowPodStatus) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[types.NamespacedName]statusWrite{}
	}
	l.by[key] = statusWrite{uid: uid, replaced: *replaced.DeepCopy(), set: *set.DeepCopy()}
}

// recreations is the recreation count of the last status this controller
// wrote for the ShadowPod, 0 when it wrote none.
func (l *lastWrites) recreations(key types.NamespacedName, uid types.UID) int {
	l.mu.Lock()
	last, ok := l.by[key]
	l.mu.Unlock()
	if !ok || last.uid != uid {
		return 0
	}
	return recreations(&virtualkubeletv1alpha1.ShadowPod{Status: last.set})
}

// forget drops a ShadowPod that is gone.
func (l *lastWrites) forget(key types.NamespacedName) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.by, key)
}

// sameReport compares two statuses as a reader sees them, leaving out the
// conditions' transition times: a condition recomputed from a stale copy
// carries a new time for the same transition.
func sameReport(a, b virtualkubeletv1alpha1.ShadowPodStatus) bool {
	return equality.Semantic.DeepEqual(withoutTransitionTimes(a), withoutTransitionTimes(b))
}

func withoutTransitionTimes(s virtualkubeletv1alpha1.ShadowPodStatus) virtualkubeletv1alpha1.ShadowPodStatus {
	out := *s.DeepCopy()
	for i := range out.Conditions {
		out.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	return out
}

// statusPatchFor is the status write of sp from before to sp.Status: a JSON
// merge patch of the status alone, sent for a metadata-only object. The status
// subresource keeps nothing of a request but its status, so marshalling and
// diffing the whole ShadowPod (its pod included) as client.MergeFrom does
// changed nothing the API server stores; and a typed object would have the
// client decode the whole ShadowPod the server answers with, which nothing
// reads (the status just written is known). A PartialObjectMetadata goes
// through controller-runtime's metadata client, which asks for the answer as
// metadata. Issue 17, lever 33: about 0.9 s of the provider's manager per
// 3,000 pods.
func statusPatchFor(sp *virtualkubeletv1alpha1.ShadowPod, before virtualkubeletv1alpha1.ShadowPodStatus) (client.Patch, *metav1.PartialObjectMetadata, error) {
	type statusOnly struct {
		Status virtualkubeletv1alpha1.ShadowPodStatus `json:"status"`
	}
	from, err := json.Marshal(statusOnly{before})
	if err != nil {
		return nil, nil, err
	}
	to, err := json.Marshal(statusOnly{sp.Status})
	if err != nil {
		return nil, nil, err
	}
	data, err := jsonpatch.CreateMergePatch(from, to)
	if err != nil {
		return nil, nil, err
	}
	target := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: virtualkubeletv1alpha1.GroupVersion.String(), Kind: "ShadowPod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: sp.Namespace, Name: sp.Name},
	}
	return client.RawPatch(types.MergePatchType, data), target, nil
}
