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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestExternalClaimClass(t *testing.T) {
	claim := func(class *string, annotations map[string]string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data", Annotations: annotations},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class}}
	}
	for _, tc := range []struct {
		name string
		pvc  *corev1.PersistentVolumeClaim
		want string
	}{
		{name: "a class of its own", pvc: claim(ptr.To("remote-disk"), nil), want: "remote-disk"},
		{name: "no class: the default class's", pvc: claim(nil, nil)},
		{name: "the empty class: classless volumes only", pvc: claim(ptr.To(""), nil)},
		{name: "the virtual class has its own provisioner", pvc: claim(ptr.To("liqo"), nil)},
		{name: "skip-reflection, whatever its value", pvc: claim(ptr.To("remote-disk"), map[string]string{"liqo.io/skip-reflection": ""})},
		{name: "skip-reflection false still skips, as the reflectors read it", pvc: claim(ptr.To("remote-disk"), map[string]string{"liqo.io/skip-reflection": "false"})},
		{name: "other annotations", pvc: claim(ptr.To("remote-disk"), map[string]string{"team": "a"}), want: "remote-disk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ExternalClaimClass(tc.pvc)
			if got != tc.want || ok != (tc.want != "") {
				t.Fatalf("ExternalClaimClass = %q, %v; want %q", got, ok, tc.want)
			}
		})
	}
}

func TestExternalClaimDecisionFor(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "data"}}
	peer := func(name string, opts ...func(*ExternalStoragePeer)) ExternalStoragePeer {
		p := ExternalStoragePeer{ClusterID: name + "-id", ClusterName: name}
		for _, o := range opts {
			o(&p)
		}
		return p
	}
	offloaded := func(p *ExternalStoragePeer) { p.Offloaded = true }
	pending := func(p *ExternalStoragePeer) { p.TwinPending = true }
	offers := func(classes ...string) func(*ExternalStoragePeer) {
		return func(p *ExternalStoragePeer) { p.Classes = classes }
	}
	unreadable := func(p *ExternalStoragePeer) { p.OfferError = "connection refused" }
	for _, tc := range []struct {
		name    string
		peers   []ExternalStoragePeer
		action  ExternalClaimAction
		cluster string
		reason  string
		message []string
	}{
		{name: "the one offloaded peer offering the class", action: ExternalClaimReflect, cluster: "milan-id",
			peers: []ExternalStoragePeer{peer("milan", offloaded, offers("archive", "remote-disk")), peer("naples", offloaded)}},
		{name: "a peer offering it that the namespace is not offloaded to does not compete", action: ExternalClaimReflect, cluster: "milan-id",
			peers: []ExternalStoragePeer{peer("milan", offloaded, offers("remote-disk")), peer("naples", offers("remote-disk"))}},
		{name: "an unreadable offer of a peer the namespace is not offloaded to does not matter", action: ExternalClaimReflect, cluster: "milan-id",
			peers: []ExternalStoragePeer{peer("milan", offloaded, offers("remote-disk")), peer("naples", unreadable)}},
		{name: "two offloaded peers offering it", action: ExternalClaimRefuse, reason: ReasonExternalClassAmbiguous,
			peers:   []ExternalStoragePeer{peer("milan", offloaded, offers("remote-disk")), peer("naples", offloaded, offers("remote-disk"))},
			message: []string{`claim shop/data of class "remote-disk"`, "milan, naples", "spec.externalStorageClasses", "clusterSelector", "liqo.io/skip-reflection"}},
		{name: "no offloaded peer offers it", action: ExternalClaimRefuse, reason: ReasonExternalClassNotOffered,
			peers:   []ExternalStoragePeer{peer("milan", offloaded, offers("archive")), peer("naples", offloaded)},
			message: []string{`"remote-disk"`, "milan, naples", `add "remote-disk" to spec.externalStorageClasses`, "liqo.io/skip-reflection"}},
		{name: "offered only by a peer the namespace is not offloaded to", action: ExternalClaimRefuse, reason: ReasonNamespaceNotOffloaded,
			peers:   []ExternalStoragePeer{peer("milan", offers("remote-disk")), peer("naples", offloaded)},
			message: []string{"offered by milan", "namespace shop is not offloaded there", "liqo.io/skip-reflection"}},
		{name: "a namespace offloaded nowhere, with a peer offering the class", action: ExternalClaimRefuse, reason: ReasonNamespaceNotOffloaded,
			peers: []ExternalStoragePeer{peer("milan", offers("remote-disk"))}, message: []string{"NamespaceOffloading"}},
		{name: "a namespace offloaded nowhere and no offer: not Spillway's claim", action: ExternalClaimIgnore,
			peers: []ExternalStoragePeer{peer("milan", offers("archive"))}},
		{name: "no peers at all", action: ExternalClaimIgnore},
		{name: "the offer of an offloaded peer cannot be read", action: ExternalClaimWait,
			peers: []ExternalStoragePeer{peer("milan", offloaded, offers("remote-disk")), peer("naples", offloaded, unreadable)}, message: []string{"naples", "connection refused"}},
		{name: "a peer offering it whose twin is not Ready yet could make it ambiguous", action: ExternalClaimWait,
			peers: []ExternalStoragePeer{peer("milan", offloaded, offers("remote-disk")), peer("naples", pending, offers("remote-disk"))}, message: []string{"naples"}},
		{name: "a pending twin on a peer not offering it does not matter", action: ExternalClaimReflect, cluster: "milan-id",
			peers: []ExternalStoragePeer{peer("milan", offloaded, offers("remote-disk")), peer("naples", pending)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := ExternalClaimDecisionFor(pvc, "remote-disk", tc.peers)
			if d.Action != tc.action || d.ClusterID != tc.cluster {
				t.Fatalf("ExternalClaimDecisionFor = %+v, want action %d on %q", d, tc.action, tc.cluster)
			}
			if tc.reason != "" && d.Reason != tc.reason {
				t.Errorf("reason %q, want %q", d.Reason, tc.reason)
			}
			for _, m := range tc.message {
				if !strings.Contains(d.Message, m) {
					t.Errorf("message %q does not say %q", d.Message, m)
				}
			}
			if (d.Action == ExternalClaimRefuse || d.Action == ExternalClaimWait) && (d.Reason == "" || d.Message == "") {
				t.Errorf("a claim left Pending has no reason or message: %+v", d)
			}
		})
	}
}

func TestParseExternalStorageClasses(t *testing.T) {
	for _, tc := range []struct {
		in, err string
		want    []string
	}{
		{in: ""},
		{in: `[]`, want: []string{}},
		{in: `["remote-disk","archive.example.com"]`, want: []string{"remote-disk", "archive.example.com"}},
		{in: `"remote-disk"`, err: "not a JSON list"},
		{in: `["Remote_Disk"]`, err: `class "Remote_Disk"`},
		{in: `[""]`, err: `class ""`},
		{in: `["` + strings.Repeat("a", 254) + `"]`, err: "must be no more than 253"},
		{in: `[` + strings.Repeat(`"a",`, MaxExternalStorageClasses) + `"a"]`, err: "more than 32"},
	} {
		got, err := ParseExternalStorageClasses(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseExternalStorageClasses(%q) error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") || (got == nil) != (tc.want == nil) {
			t.Errorf("ParseExternalStorageClasses(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzParseExternalStorageClasses: the offer is the provider's, so any
// input must parse to valid class names or to an error, never panic.
func FuzzParseExternalStorageClasses(f *testing.F) {
	for _, s := range []string{"", `[]`, `["remote-disk"]`, `["a","b.c"]`, `[1]`, `{"a":1}`, `["A"]`, `null`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		classes, err := ParseExternalStorageClasses(s)
		if err != nil {
			if classes != nil {
				t.Fatalf("an error with classes %q", classes)
			}
			return
		}
		if len(classes) > MaxExternalStorageClasses {
			t.Fatalf("%d classes", len(classes))
		}
		for _, c := range classes {
			if c == "" || len(c) > 253 || strings.ToLower(c) != c || strings.ContainsAny(c, "/: _") {
				t.Fatalf("class %q passed", c)
			}
		}
	})
}
