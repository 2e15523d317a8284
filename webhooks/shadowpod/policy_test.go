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
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

func newValidator(objs ...client.Object) *Validator {
	return &Validator{Reader: fake.NewClientBuilder().WithScheme(scheme()).WithObjects(objs...).Build(), Decoder: admission.NewDecoder(scheme()), Usage: usageOf(objs...)}
}

func request(g Gomega, op admissionv1.Operation, sp, old *virtualkubeletv1alpha1.ShadowPod) admission.Request {
	raw, err := json.Marshal(sp)
	g.Expect(err).NotTo(HaveOccurred())
	req := admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{Namespace: sp.Namespace, Operation: op, Object: runtime.RawExtension{Raw: raw}}}
	if old != nil {
		req.OldObject.Raw, err = json.Marshal(old)
		g.Expect(err).NotTo(HaveOccurred())
	}
	return req
}

func privileged(sp *virtualkubeletv1alpha1.ShadowPod) *virtualkubeletv1alpha1.ShadowPod {
	sp.Spec.Pod.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	return sp
}

func TestAPolicyBreachIsDeniedAsInvalidNamingFieldOfferAndLevel(t *testing.T) {
	g := NewWithT(t)
	v := newValidator(twin("a-rome", "rome-id"), offer("4"))
	resp := v.Handle(context.Background(), request(g, admissionv1.Create, privileged(shadowPod("a-rome", "root", "1")), nil))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Code).To(Equal(int32(http.StatusUnprocessableEntity)), "a retry cannot help: the consumer fails the pod")
	g.Expect(resp.Result.Message).To(ContainSubstring("spec.pod.containers[0].securityContext.privileged: is true"))
	g.Expect(resp.Result.Message).To(ContainSubstring("ResourceOffer liqo/rome (spec.podSecurityLevel baseline)"))
	g.Expect(resp.Result.Message).To(ContainSubstring("set it to false"))
}

func TestTheOffersRestrictedLevelApplies(t *testing.T) {
	g := NewWithT(t)
	o := offer("4")
	o.Spec.PodSecurityLevel = sharingv1alpha1.PodSecurityRestricted
	v := newValidator(twin("a-rome", "rome-id"), o)
	resp := v.Handle(context.Background(), request(g, admissionv1.Create, shadowPod("a-rome", "web", "1"), nil))
	g.Expect(resp.Result.Message).To(ContainSubstring("spec.podSecurityLevel restricted"))
	g.Expect(resp.Result.Message).To(ContainSubstring("spec.pod.containers[0].securityContext.runAsNonRoot"))
}

func TestAnUpdateIsHeldToThePodUpdateRulesAndThePolicy(t *testing.T) {
	g := NewWithT(t)
	old := shadowPod("a-rome", "web", "1")
	v := newValidator(twin("a-rome", "rome-id"), offer("4"), old)
	resp := v.Handle(context.Background(), request(g, admissionv1.Update, privileged(old.DeepCopy()), old))
	g.Expect(resp.Allowed).To(BeFalse())
	g.Expect(resp.Result.Message).To(ContainSubstring("spec.pod.containers[0].securityContext: cannot change"))
	g.Expect(resp.Result.Message).To(ContainSubstring("spec.pod.containers[0].securityContext.privileged: is true"))

	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"app": "web"}
	relabelled.Spec.Pod.Containers[0].Image = "nginx:1.29"
	g.Expect(v.Handle(context.Background(), request(g, admissionv1.Update, relabelled, old)).Allowed).To(BeTrue())

	bigger := old.DeepCopy()
	bigger.Spec.Pod.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("8")
	resp = v.Handle(context.Background(), request(g, admissionv1.Update, bigger, old))
	g.Expect(resp.Result.Message).To(ContainSubstring("spec.pod.containers[0].resources: cannot change"))
}

func TestAnUpdateOfAPodAdmittedUnderALooserLevelMayStillRelabel(t *testing.T) {
	g := NewWithT(t)
	o := offer("4")
	o.Spec.PodSecurityLevel = sharingv1alpha1.PodSecurityRestricted
	old := shadowPod("a-rome", "web", "1")
	v := newValidator(twin("a-rome", "rome-id"), o, old)
	relabelled := old.DeepCopy()
	relabelled.Labels = map[string]string{"version": "2"}
	g.Expect(v.Handle(context.Background(), request(g, admissionv1.Update, relabelled, old)).Allowed).To(BeTrue())
}

func TestLimitsOnlyContainersAndPodsCount(t *testing.T) {
	g := NewWithT(t)
	limitsOnly := shadowPod("a-rome", "big", "0")
	limitsOnly.Spec.Pod.Containers[0].Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8")}}
	resp := newValidator(twin("a-rome", "rome-id"), offer("4")).Handle(context.Background(), request(g, admissionv1.Create, limitsOnly, nil))
	g.Expect(resp.Result.Message).To(ContainSubstring("missing cpu 4"), "the API server defaults the request to the 8 CPU limit")

	fixed := offer("4")
	fixed.Status.Offered[corev1.ResourcePods] = resource.MustParse("1")
	resp = newValidator(twin("a-rome", "rome-id"), fixed, shadowPod("a-rome", "one", "0")).
		Handle(context.Background(), request(g, admissionv1.Create, shadowPod("a-rome", "two", "0"), nil))
	g.Expect(resp.Result.Message).To(ContainSubstring("missing pods 1"))
}

// TestADryRunHoldsNoRoom: a dry run is answered as a create would be, but
// the API server stores nothing, so it must not hold room the real create
// after it needs.
func TestADryRunHoldsNoRoom(t *testing.T) {
	g := NewWithT(t)
	v := newValidator(twin("a-rome", "rome-id"), offer("1"))
	dry := request(g, admissionv1.Create, withUID(shadowPod("a-rome", "probe", "1"), "uid-probe"), nil)
	dry.DryRun = ptr.To(true)
	g.Expect(v.Handle(context.Background(), dry).Allowed).To(BeTrue())
	g.Expect(v.ledger.reserved).To(BeEmpty())
	real := request(g, admissionv1.Create, withUID(shadowPod("a-rome", "web", "1"), "uid-web"), nil)
	g.Expect(v.Handle(context.Background(), real).Allowed).To(BeTrue(), "the dry run took none of the 1 CPU offered")
}

// TestConcurrentCreatesNeverOvershootTheOffer admits 40 creates at once
// against a cache that never shows them (the worst lag): exactly what fits
// is admitted.
func TestConcurrentCreatesNeverOvershootTheOffer(t *testing.T) {
	g := NewWithT(t)
	v := newValidator(twin("a-rome", "rome-id"), offer("10"))
	var admitted atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sp := shadowPod("a-rome", fmt.Sprintf("web-%d", i), "1")
			sp.UID = types.UID(fmt.Sprintf("uid-%d", i))
			if v.Handle(context.Background(), request(g, admissionv1.Create, sp, nil)).Allowed {
				admitted.Add(1)
			}
		}()
	}
	wg.Wait()
	g.Expect(admitted.Load()).To(Equal(int32(10)))
}

func TestAReservationEndsWhenTheCacheShowsTheShadowPodOrItExpires(t *testing.T) {
	g := NewWithT(t)
	now := time.Unix(0, 0)
	sp := shadowPod("a-rome", "web", "3")
	sp.UID = "uid-web"
	l := &ledger{now: func() time.Time { return now }}
	l.reserve("rome-id", admittedKey(sp), corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")})
	g.Expect(l.pending("rome-id", nil, "")).To(HaveKey(corev1.ResourceCPU))
	g.Expect(l.pending("naples-id", nil, "")).To(BeEmpty(), "reservations are per consumer")
	g.Expect(l.pending("rome-id", seenOnly("uid-web"), "")).To(BeEmpty(), "the count shows it now")
	g.Expect(l.reserved["rome-id"]).To(BeEmpty())

	l.reserve("rome-id", "uid-lost", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")})
	now = now.Add(reservationTTL + time.Second)
	g.Expect(l.pending("rome-id", nil, "")).To(BeEmpty(), "a create that failed after admission holds nothing for long")
}

// A consumer whose reservations all ended leaves no entry: the provider
// serves consumers that come and go for as long as it runs.
func TestAConsumerWithNoReservationLeftLeavesNoEntry(t *testing.T) {
	g := NewWithT(t)
	l := &ledger{}
	l.reserve("gone-id", "uid-web", corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")})
	g.Expect(l.pending("gone-id", seenOnly("uid-web"), "")).To(BeEmpty())
	g.Expect(l.reserved).NotTo(HaveKey("gone-id"))
}
