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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
)

func withNotReadySeconds(v string) func(*offloadingv1alpha1.NamespaceOffloading) {
	return func(no *offloadingv1alpha1.NamespaceOffloading) {
		no.Annotations = map[string]string{offloadingv1alpha1.NotReadyTolerationSecondsAnnotation: v}
	}
}

func TestNotReadyPolicyOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		no      *offloadingv1alpha1.NamespaceOffloading
		forever bool
		seconds int64
		err     string
	}{
		{name: "no annotation: for ever", no: offloading(), forever: true},
		{name: "empty: for ever", no: offloading(withNotReadySeconds(" ")), forever: true},
		{name: "Kubernetes' own delay", no: offloading(withNotReadySeconds("300")), seconds: 300},
		{name: "at once", no: offloading(withNotReadySeconds("0")), seconds: 0},
		{name: "a year", no: offloading(withNotReadySeconds("31536000")), seconds: MaxNotReadyTolerationSeconds},
		{name: "a duration is not seconds", no: offloading(withNotReadySeconds("5m")), err: `"5m" is not a number of seconds`},
		{name: "negative", no: offloading(withNotReadySeconds("-1")), err: "from 0 to 31536000"},
		{name: "beyond a year", no: offloading(withNotReadySeconds("31536001")), err: "remove the annotation to never evict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			p, err := NotReadyPolicyOf(tc.no)
			if tc.err != "" {
				g.Expect(err).To(MatchError(And(ContainSubstring(offloadingv1alpha1.NotReadyTolerationSecondsAnnotation), ContainSubstring(tc.err))))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(p.Forever()).To(Equal(tc.forever))
			if !tc.forever {
				g.Expect(*p.Seconds).To(Equal(tc.seconds))
			}
		})
	}
}

func TestAdmitOffloadingDeniesAnInvalidNotReadyPolicy(t *testing.T) {
	g := NewWithT(t)
	v := AdmitOffloading(nil, offloading(withNotReadySeconds("soon")))
	g.Expect(v.Denied).To(ConsistOf(ContainSubstring(`metadata.annotations[offloading.spillway.liqo.io/not-ready-toleration-seconds] "soon"`)))
	g.Expect(AdmitOffloading(offloading(), offloading(withNotReadySeconds("120"))).Allowed()).To(BeTrue())
}

// defaults are the tolerations the API server's DefaultTolerationSeconds
// admission adds to every pod.
func defaults(seconds int64) []corev1.Toleration {
	return []corev1.Toleration{
		{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(seconds)},
		{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(seconds)},
	}
}

func notReadyToleration(key string, seconds *int64) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}
}

func TestWithNotReadyPolicy(t *testing.T) {
	forever, evict60 := NotReadyPolicy{}, NotReadyPolicy{Seconds: ptr.To(int64(60))}
	virtualNode := VirtualNodeToleration()
	for _, tc := range []struct {
		name    string
		have    []corev1.Toleration
		policy  NotReadyPolicy
		want    []corev1.Toleration
		changed bool
	}{
		{name: "the API server's 300 s become for ever", have: append([]corev1.Toleration{virtualNode}, defaults(300)...), policy: forever,
			want:    []corev1.Toleration{virtualNode, notReadyToleration(corev1.TaintNodeNotReady, nil), notReadyToleration(corev1.TaintNodeUnreachable, nil)},
			changed: true},
		{name: "already for ever: unchanged", have: []corev1.Toleration{notReadyToleration(corev1.TaintNodeNotReady, nil), notReadyToleration(corev1.TaintNodeUnreachable, nil)},
			policy: forever, want: []corev1.Toleration{notReadyToleration(corev1.TaintNodeNotReady, nil), notReadyToleration(corev1.TaintNodeUnreachable, nil)}},
		{name: "the override sets the delay", have: defaults(300), policy: evict60, want: defaults(60), changed: true},
		{name: "the override is reverted to for ever", have: defaults(60), policy: forever,
			want: []corev1.Toleration{notReadyToleration(corev1.TaintNodeNotReady, nil), notReadyToleration(corev1.TaintNodeUnreachable, nil)}, changed: true},
		{name: "no tolerations (a pod created before the API server's defaults): both added", policy: forever,
			want:    []corev1.Toleration{notReadyToleration(corev1.TaintNodeNotReady, nil), notReadyToleration(corev1.TaintNodeUnreachable, nil)},
			changed: true},
		{name: "a pod's own Equal toleration is governed too", policy: forever,
			have: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(10))},
				notReadyToleration(corev1.TaintNodeUnreachable, nil)},
			want: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoExecute},
				notReadyToleration(corev1.TaintNodeUnreachable, nil)},
			changed: true},
		{name: "a NoExecute wildcard tolerates both taints: it carries the delay, nothing is added", policy: evict60,
			have: []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
			want: []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To(int64(60))}}, changed: true},
		{name: "a wildcard without effect cannot carry seconds: left alone, the delay added beside it", policy: evict60,
			have: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			want: []corev1.Toleration{{Operator: corev1.TolerationOpExists}, notReadyToleration(corev1.TaintNodeNotReady, ptr.To(int64(60))),
				notReadyToleration(corev1.TaintNodeUnreachable, ptr.To(int64(60)))}, changed: true},
		{name: "NoSchedule tolerations of the same keys are not NoExecute ones", policy: forever,
			have: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			want: []corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
				notReadyToleration(corev1.TaintNodeNotReady, nil), notReadyToleration(corev1.TaintNodeUnreachable, nil)}, changed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			var before []corev1.Toleration
			for i := range tc.have {
				before = append(before, *tc.have[i].DeepCopy())
			}
			got, changed := WithNotReadyPolicy(tc.have, tc.policy)
			g.Expect(changed).To(Equal(tc.changed))
			g.Expect(got).To(Equal(tc.want))
			g.Expect(tc.have).To(Equal(before), "the pod's own tolerations were modified in place")
			again, changedAgain := WithNotReadyPolicy(got, tc.policy)
			g.Expect(changedAgain).To(BeFalse(), "not idempotent")
			g.Expect(again).To(Equal(got))
		})
	}
}

func TestGovernedByNotReadyPolicy(t *testing.T) {
	virtual := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "liqo-milan", Labels: map[string]string{"liqo.io/type": "virtual-node"}}}
	physical := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "rome-worker-0"}}
	pod := func(node string, mutate ...func(*corev1.Pod)) *corev1.Pod {
		p := &corev1.Pod{Spec: corev1.PodSpec{NodeName: node}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		for _, m := range mutate {
			m(p)
		}
		return p
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		node *corev1.Node
		want bool
	}{
		{name: "running on a virtual node", pod: pod("liqo-milan"), node: virtual, want: true},
		{name: "pending on a virtual node", pod: pod("liqo-milan", func(p *corev1.Pod) { p.Status.Phase = corev1.PodPending }), node: virtual, want: true},
		{name: "on a physical node (LocalAndRemote): Kubernetes' eviction", pod: pod("rome-worker-0"), node: physical},
		{name: "not bound yet", pod: pod(""), node: nil},
		{name: "the node is gone", pod: pod("liqo-milan"), node: nil},
		{name: "a node other than the pod's", pod: pod("liqo-naples"), node: virtual},
		{name: "being deleted", pod: pod("liqo-milan", func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{} }), node: virtual},
		{name: "finished", pod: pod("liqo-milan", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }), node: virtual},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(GovernedByNotReadyPolicy(tc.pod, tc.node)).To(Equal(tc.want))
		})
	}
}

func FuzzParseNotReadyTolerationSeconds(f *testing.F) {
	for _, s := range []string{"", "0", "300", "31536000", "31536001", "-1", "5m", " 42 ", "+7", "0x10", "9223372036854775808", "１２"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		p, err := ParseNotReadyTolerationSeconds(raw)
		if err != nil {
			if !strings.Contains(err.Error(), offloadingv1alpha1.NotReadyTolerationSecondsAnnotation) {
				t.Fatalf("the error for %q does not name the annotation: %v", raw, err)
			}
			return
		}
		if p.Forever() || *p.Seconds < 0 || *p.Seconds > MaxNotReadyTolerationSeconds {
			t.Fatalf("%q accepted as %v, outside 0..%d", raw, p, MaxNotReadyTolerationSeconds)
		}
		tols, _ := WithNotReadyPolicy(nil, p)
		for _, tol := range tols {
			if tol.TolerationSeconds == nil || *tol.TolerationSeconds != *p.Seconds {
				t.Fatalf("%q: toleration %+v does not carry the policy's seconds", raw, tol)
			}
		}
	})
}

func TestWithoutNotReadyTolerations(t *testing.T) {
	g := NewWithT(t)
	gpu := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}
	noSchedule := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}
	in := append(defaults(300), gpu, notReadyToleration(corev1.TaintNodeUnreachable, nil), noSchedule)
	g.Expect(WithoutNotReadyTolerations(in)).To(Equal([]corev1.Toleration{gpu, noSchedule}))
	g.Expect(WithoutNotReadyTolerations(nil)).To(BeEmpty())
}

func TestOnlyOnVirtualNodes(t *testing.T) {
	req := func(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
	}
	affinity := func(terms ...[]corev1.NodeSelectorRequirement) *corev1.Affinity {
		sel := &corev1.NodeSelector{}
		for _, t := range terms {
			sel.NodeSelectorTerms = append(sel.NodeSelectorTerms, corev1.NodeSelectorTerm{MatchExpressions: t})
		}
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: sel}}
	}
	virtual := req("liqo.io/type", corev1.NodeSelectorOpIn, "virtual-node")
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want bool
	}{
		{"no constraint", corev1.PodSpec{}, false},
		{"nodeSelector liqo.io/type=virtual-node", corev1.PodSpec{NodeSelector: map[string]string{"liqo.io/type": "virtual-node"}}, true},
		{"nodeSelector on another label", corev1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"}}, false},
		{"Remote placement", corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{virtual})}, true},
		{"Remote placement with a cluster selector", corev1.PodSpec{Affinity: affinity(
			[]corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpIn, "south"), virtual},
			[]corev1.NodeSelectorRequirement{req("region", corev1.NodeSelectorOpIn, "center"), virtual})}, true},
		{"LocalAndRemote placement: one term allows physical nodes", corev1.PodSpec{Affinity: affinity(
			[]corev1.NodeSelectorRequirement{req("liqo.io/type", corev1.NodeSelectorOpNotIn, "virtual-node")},
			[]corev1.NodeSelectorRequirement{virtual})}, false},
		{"In with another value too", corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{req("liqo.io/type", corev1.NodeSelectorOpIn, "virtual-node", "edge")})}, false},
		{"Exists on the label", corev1.PodSpec{Affinity: affinity([]corev1.NodeSelectorRequirement{req("liqo.io/type", corev1.NodeSelectorOpExists)})}, false},
		{"an empty required selector", corev1.PodSpec{Affinity: affinity()}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(OnlyOnVirtualNodes(&tc.spec)).To(Equal(tc.want))
		})
	}
}
