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
	"encoding/json"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

// The pod policy and the quota arithmetic judge what a consumer sends: their
// inputs are the peer's, so they must never panic, and they must keep their
// promises for any input. go test runs the seeds; go test -fuzz explores.

// podSeeds are pod specs as a consumer could send them, as JSON.
var podSeeds = []string{
	`{"containers":[{"name":"web","image":"nginx"}]}`,
	`{"hostNetwork":true,"hostPID":true,"nodeName":"cp","serviceAccountName":"admin","containers":[{"name":"c","securityContext":{"privileged":true,"capabilities":{"add":["SYS_ADMIN"]}},"ports":[{"containerPort":1,"hostPort":1}]}],"volumes":[{"name":"r","hostPath":{"path":"/"}}]}`,
	`{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"c","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]}}}],"volumes":[{"name":"t","emptyDir":{}}]}`,
	`{"securityContext":{"runAsNonRoot":false,"runAsUser":0,"seccompProfile":{"type":"Unconfined"},"sysctls":[{"name":"kernel.msgmax","value":"1"}],"seLinuxOptions":{"type":"spc_t","user":"root"}},"initContainers":[{"name":"i","securityContext":{"procMount":"Unmasked","windowsOptions":{"hostProcess":true}}}],"ephemeralContainers":[{"name":"e","securityContext":{"privileged":true}}],"containers":[{"name":"c","securityContext":{"seccompProfile":{"type":"Localhost","localhostProfile":"p"},"appArmorProfile":{"type":"Unconfined"}}}]}`,
	`{"activeDeadlineSeconds":-1,"tolerations":[{"key":"a","operator":"Exists"}],"schedulingGates":[{"name":"g"}],"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"1","memory":"1Gi"}}}],"overhead":{"cpu":"1"}}`,
	`{"containers":[]}`,
	`{}`,
}

func FuzzCheckPod(f *testing.F) {
	for _, s := range podSeeds {
		f.Add([]byte(s), "container.apparmor.security.beta.kubernetes.io/c", "unconfined")
	}
	f.Fuzz(func(t *testing.T, raw []byte, annotationKey, annotationValue string) {
		spec := &corev1.PodSpec{}
		if json.Unmarshal(raw, spec) != nil {
			return
		}
		annotations := map[string]string{annotationKey: annotationValue}
		before := spec.DeepCopy()
		atBaseline := CheckPod(spec, annotations, sharingv1alpha1.PodSecurityBaseline)
		atRestricted := CheckPod(spec, annotations, sharingv1alpha1.PodSecurityRestricted)
		if !equality.Semantic.DeepEqual(before, spec) {
			t.Fatalf("CheckPod changed the spec it judged")
		}
		if len(atRestricted) == 0 && len(atBaseline) != 0 {
			t.Fatalf("a pod allowed at restricted is denied at baseline: %v", atBaseline)
		}
		for _, v := range atBaseline {
			if !slices.Contains(atRestricted, v) {
				t.Fatalf("restricted forgets the baseline's %v", v)
			}
		}
		for _, v := range atRestricted {
			if v.Field == "" || v.Problem == "" || v.Fix == "" {
				t.Fatalf("a violation without field, problem or fix: %#v", v)
			}
		}
		if vs := CheckPodUpdate(spec, spec.DeepCopy()); len(vs) != 0 {
			t.Fatalf("an update that changes nothing is denied: %v", vs)
		}
		_ = CheckPodUpdate(&corev1.PodSpec{}, spec)
		_ = CheckPodUpdate(spec, &corev1.PodSpec{})
	})
}

func FuzzPodRequestsAndMissingFromOffer(f *testing.F) {
	f.Add("1", "2", "500m", "100m", "4", "3")
	f.Add("", "1Gi", "0", "", "1", "0")
	f.Add("1e3", "-1", "9223372036854775807", "1Ei", "0.001", "1m")
	f.Add("100000000000000000000000", "1", "1", "1", "1", "1")
	f.Fuzz(func(t *testing.T, request, limit, initRequest, overhead, offered, used string) {
		q := func(s string) (resource.Quantity, bool) {
			v, err := resource.ParseQuantity(s)
			return v, err == nil
		}
		spec := &corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}, InitContainers: []corev1.Container{{Name: "i"}}}
		c := &spec.Containers[0].Resources
		if v, ok := q(request); ok {
			c.Requests = corev1.ResourceList{corev1.ResourceCPU: v}
		}
		if v, ok := q(limit); ok {
			c.Limits = corev1.ResourceList{corev1.ResourceCPU: v}
		}
		if v, ok := q(initRequest); ok {
			spec.InitContainers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: v}
		}
		if v, ok := q(overhead); ok {
			spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: v}
		}
		requests := PodRequests(spec)
		if n := requests[corev1.ResourcePods]; n.Value() != 1 {
			t.Fatalf("a pod counts as %s pods", n.String())
		}
		cpu := requests[corev1.ResourceCPU]
		if cpu.Sign() < 0 {
			t.Fatalf("negative cpu request %s", cpu.String())
		}
		if _, hasRequest := c.Requests[corev1.ResourceCPU]; !hasRequest {
			if l, ok := c.Limits[corev1.ResourceCPU]; ok && l.Sign() > 0 && cpu.Cmp(l) < 0 {
				t.Fatalf("a limits-only container (limit %s) counts as %s: the API server would default its request to the limit", l.String(), cpu.String())
			}
		}
		offer, ok1 := q(offered)
		already, ok2 := q(used)
		if !ok1 || !ok2 {
			return
		}
		limits := OfferLimits(corev1.ResourceList{corev1.ResourceCPU: offer})
		usedList := corev1.ResourceList{corev1.ResourceCPU: already}
		missing := MissingFromOffer(limits, usedList, requests)
		total := already.DeepCopy()
		total.Add(cpu)
		fits := cpu.IsZero() || total.Cmp(offer) <= 0
		if _, short := missing[corev1.ResourceCPU]; short == fits {
			t.Fatalf("offer %s, used %s, request %s: missing %v, but fits=%t", offer.String(), already.String(), cpu.String(), missing, fits)
		}
		if m, short := missing[corev1.ResourceCPU]; short && m.Sign() <= 0 {
			t.Fatalf("missing a non-positive amount %s", m.String())
		}
		sum := corev1.ResourceList{}
		AddRequests(sum, usedList)
		AddRequests(sum, requests)
		if s := sum[corev1.ResourceCPU]; s.Cmp(total) != 0 {
			t.Fatalf("AddRequests: %s, want %s", s.String(), total.String())
		}
	})
}
