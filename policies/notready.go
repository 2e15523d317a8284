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

package policies

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

// NotReadyTaints are the NoExecute taints the node lifecycle controller puts
// on a node that is NotReady (the virtual kubelet reports the provider down)
// or unreachable (its lease is not renewed). A pod that does not tolerate them
// is evicted after its tolerationSeconds (300 s, added by the API server).
var NotReadyTaints = []corev1.Taint{
	{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoExecute},
}

// MaxNotReadyTolerationSeconds bounds the annotation: a year. Longer is for ever,
// which leaving the annotation out already says.
const MaxNotReadyTolerationSeconds = 365 * 24 * 3600

// NotReadyPolicy is how long the pods of one offloaded namespace, once on a
// virtual node, tolerate that node being NotReady or unreachable.
type NotReadyPolicy struct {
	// Seconds is nil for ever (the default), or the delay before eviction.
	Seconds *int64
}

// Forever reports whether the policy never evicts.
func (p NotReadyPolicy) Forever() bool { return p.Seconds == nil }

func (p NotReadyPolicy) String() string {
	if p.Forever() {
		return "tolerate for ever"
	}
	return fmt.Sprintf("evict after %d s", *p.Seconds)
}

// NotReadyPolicyOf reads the NamespaceOffloading's policy. The default, for
// ever, is chosen so that a partition never yields two running copies of a
// pod the user asked for once: the provider keeps running the remote copy
// however long the consumer cannot see it, so evicting the local pod would
// only let its controller start a second one. An invalid annotation is an
// error naming it and the fix; callers that must act anyway use the default.
func NotReadyPolicyOf(no *offloadingv1alpha1.NamespaceOffloading) (NotReadyPolicy, error) {
	raw, ok := no.Annotations[offloadingv1alpha1.NotReadyTolerationSecondsAnnotation]
	if !ok || strings.TrimSpace(raw) == "" {
		return NotReadyPolicy{}, nil
	}
	return ParseNotReadyTolerationSeconds(raw)
}

// ParseNotReadyTolerationSeconds reads the annotation's value: a whole number
// of seconds from 0 to MaxNotReadyTolerationSeconds.
func ParseNotReadyTolerationSeconds(raw string) (NotReadyPolicy, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
	if err != nil || n < 0 || n > MaxNotReadyTolerationSeconds {
		return NotReadyPolicy{}, fmt.Errorf("metadata.annotations[%s] %q is not a number of seconds from 0 to %d: "+
			"write e.g. \"300\" to evict pods from a virtual node 5 minutes after it turns NotReady (a partition may then run a pod twice), "+
			"or remove the annotation to never evict them",
			offloadingv1alpha1.NotReadyTolerationSecondsAnnotation, raw, MaxNotReadyTolerationSeconds)
	}
	return NotReadyPolicy{Seconds: ptr.To(n)}, nil
}

// WithNotReadyPolicy returns the tolerations of a pod bound to a virtual node
// with the policy applied, and whether they changed. Every NoExecute
// toleration that tolerates a NotReadyTaints taint gets the policy's seconds
// (the taint eviction controller waits for the shortest of them); a taint no
// NoExecute toleration names gets one. Only tolerationSeconds change and
// tolerations are only added, which is all Kubernetes allows on a running pod.
// Tolerations without an effect cannot carry seconds and already tolerate for
// ever; they are left alone.
func WithNotReadyPolicy(have []corev1.Toleration, p NotReadyPolicy) ([]corev1.Toleration, bool) {
	out := make([]corev1.Toleration, len(have))
	copy(out, have)
	changed := false
	for _, taint := range NotReadyTaints {
		covered := false
		for i := range out {
			t := &out[i]
			if t.Effect != corev1.TaintEffectNoExecute || !tolerates(*t, taint) {
				continue
			}
			covered = true
			if !equalSeconds(t.TolerationSeconds, p.Seconds) {
				t.TolerationSeconds = copySeconds(p.Seconds)
				changed = true
			}
		}
		if !covered {
			out = append(out, corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
				TolerationSeconds: copySeconds(p.Seconds)})
			changed = true
		}
	}
	if !changed {
		return have, false
	}
	return out, true
}

// tolerates matches a NoExecute toleration to a taint, as the scheduler and
// the taint eviction controller do (Exists with no key matches every taint).
func tolerates(t corev1.Toleration, taint corev1.Taint) bool {
	switch t.Operator {
	case corev1.TolerationOpExists:
		return t.Key == "" || t.Key == taint.Key
	case corev1.TolerationOpEqual, "":
		return t.Key == taint.Key && t.Value == taint.Value
	}
	return false
}

func equalSeconds(a, b *int64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func copySeconds(s *int64) *int64 {
	if s == nil {
		return nil
	}
	return ptr.To(*s)
}

// GovernedByNotReadyPolicy reports whether the pod's NotReady tolerations
// follow its namespace's policy: it is bound to a virtual node, and neither
// being deleted nor finished. A pod of a LocalAndRemote namespace that the
// scheduler put on a physical node keeps Kubernetes' eviction: when that node
// dies nothing runs the pod elsewhere, and staying bound to it for ever would
// only keep its controller from replacing it.
func GovernedByNotReadyPolicy(pod *corev1.Pod, node *corev1.Node) bool {
	if pod.Spec.NodeName == "" || node == nil || pod.Spec.NodeName != node.Name || pod.DeletionTimestamp != nil {
		return false
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false
	}
	return node.Labels[virtualNodeLabelKey] == virtualNodeLabelValue
}

// WithoutNotReadyTolerations drops the NoExecute tolerations of the
// NotReadyTaints keys: what a provider does with a consumer's pod spec. The
// consumer's tolerations of them are its policy for the virtual node; on the
// provider's own nodes the provider's API server adds its own default, so a
// dead provider node still has its pods evicted and recreated.
func WithoutNotReadyTolerations(in []corev1.Toleration) []corev1.Toleration {
	var out []corev1.Toleration
	for _, t := range in {
		if t.Effect == corev1.TaintEffectNoExecute && (t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// OnlyOnVirtualNodes reports whether a pod spec can only be scheduled to a
// virtual node: its nodeSelector asks for one, or every term of its
// required node affinity does (a Remote-strategy placement, or the pod's own
// affinity). Such a pod is governed by the NotReady policy from the moment it
// is bound, so the pod webhook applies the policy at admission and the
// controller that applies it after binding has nothing to write (issue 17:
// that patch was one API write per offloaded pod on the consumer).
func OnlyOnVirtualNodes(spec *corev1.PodSpec) bool {
	if spec.NodeSelector[virtualNodeLabelKey] == virtualNodeLabelValue {
		return true
	}
	if spec.Affinity == nil || spec.Affinity.NodeAffinity == nil || spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return false
	}
	terms := spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return false
	}
	for _, t := range terms {
		if !slices.ContainsFunc(t.MatchExpressions, requiresVirtualNode) {
			return false
		}
	}
	return true
}

// requiresVirtualNode matches a requirement only virtual nodes meet.
func requiresVirtualNode(r corev1.NodeSelectorRequirement) bool {
	return r.Key == virtualNodeLabelKey && r.Operator == corev1.NodeSelectorOpIn &&
		len(r.Values) > 0 && !slices.ContainsFunc(r.Values, func(v string) bool { return v != virtualNodeLabelValue })
}
