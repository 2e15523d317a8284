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
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
)

// These ShadowPods would have been refused by the webhook; the controller
// meets them when the webhook did not run.

func romeOffer(level sharingv1alpha1.PodSecurityLevel) *sharingv1alpha1.ResourceOffer {
	return &sharingv1alpha1.ResourceOffer{ObjectMeta: metav1.ObjectMeta{Namespace: "liqo", Name: "rome"},
		Spec: sharingv1alpha1.ResourceOfferSpec{ClusterID: romeID, PodSecurityLevel: level}}
}

func TestAPodThePolicyForbidsIsNotCreatedAndTheShadowPodSaysWhy(t *testing.T) {
	sp := newShadowPod("root", func(sp *virtualkubeletv1alpha1.ShadowPod) {
		sp.Spec.Pod.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	})
	e := newEnv(t, newTwin(), romeOffer(""), sp)
	g := e.g
	res, got := e.mustReconcile(sp)
	g.Expect(res).To(BeZero(), "only the consumer can fix it: no retry")
	_, exists := e.pod(sp)
	g.Expect(exists).To(BeFalse())
	ready := condition(got, meta.ReadyCondition)
	g.Expect(ready.Reason).To(Equal(PodPolicyViolationReason))
	g.Expect(ready.Message).To(ContainSubstring("spec.pod.containers[0].securityContext.privileged"))
	g.Expect(ready.Message).To(ContainSubstring("ResourceOffer liqo/rome (spec.podSecurityLevel baseline)"))
	g.Expect(condition(got, meta.StalledCondition).Status).To(Equal(metav1.ConditionTrue))
}

func TestTheRestrictedLevelOfTheOfferApplies(t *testing.T) {
	sp := newShadowPod("web")
	e := newEnv(t, newTwin(), romeOffer(sharingv1alpha1.PodSecurityRestricted), sp)
	_, got := e.mustReconcile(sp)
	_, exists := e.pod(sp)
	e.g.Expect(exists).To(BeFalse(), "nginx as root is baseline, not restricted")
	e.g.Expect(condition(got, meta.ReadyCondition).Message).To(ContainSubstring("spec.pod.containers[0].securityContext.allowPrivilegeEscalation"))
}

func TestNodeNameAndServiceAccountAreTheProvidersWhateverTheShadowPodSays(t *testing.T) {
	// The policy refuses both; the pod builder clears them first, so a
	// bypassed webhook can never pin a pod to a node or lend it an identity.
	sp := newShadowPod("web", func(sp *virtualkubeletv1alpha1.ShadowPod) {
		sp.Spec.Pod.NodeName, sp.Spec.Pod.ServiceAccountName, sp.Spec.Pod.DeprecatedServiceAccount = "control-plane", "admin", "admin"
	})
	pod, err := desiredPod(sp, romeID, testScheme())
	e := NewWithT(t)
	e.Expect(err).NotTo(HaveOccurred())
	e.Expect(pod.Spec.NodeName).To(BeEmpty())
	e.Expect(pod.Spec.ServiceAccountName).To(Equal("default"))
	e.Expect(pod.Spec.DeprecatedServiceAccount).To(BeEmpty())
}
