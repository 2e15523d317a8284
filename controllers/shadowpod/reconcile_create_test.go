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

func TestReconcileCreatesThePod(t *testing.T) {
	sp := newShadowPod("web-7d4f9", withLabel(sharingv1alpha1.OriginClusterIDLabel, "paris-id"),
		withAnnotation(corev1.LastAppliedConfigAnnotation, "{}"))
	e := newEnv(t, newTwin(), sp)
	g := e.g

	res, got := e.mustReconcile(sp)
	g.Expect(res).To(BeZero(), "the pod watch reports what follows")
	pod := e.mustPod(sp)
	g.Expect(pod.Labels).To(Equal(map[string]string{"app": "web", sharingv1alpha1.OriginClusterIDLabel: romeID}),
		"the origin is the twin's consumer, whatever the ShadowPod claims")
	g.Expect(pod.Annotations).To(Equal(map[string]string{"prometheus.io/scrape": "true"}))
	g.Expect(pod.OwnerReferences).To(ConsistOf(metav1.OwnerReference{
		APIVersion: virtualkubeletv1alpha1.GroupVersion.String(), Kind: "ShadowPod", Name: sp.Name, UID: spUID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}))
	want := sp.Spec.Pod.DeepCopy()
	want.ServiceAccountName = "default"
	g.Expect(pod.Spec).To(Equal(*want), "the consumer's spec, run as the twin's default ServiceAccount")

	g.Expect(got.Status).To(Equal(sp.Status), "a pod that is merely starting is not reported yet (see reconcile_firstreport_test.go)")
	g.Expect(got.Spec).To(Equal(sp.Spec), "the spec is the consumer's")
	g.Expect(got.Labels).To(Equal(sp.Labels))
}

func TestAShadowPodOutsideATwinGetsNoPod(t *testing.T) {
	plain := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default",
		Labels: map[string]string{sharingv1alpha1.RemoteClusterIDLabel: romeID}}}
	sp := newShadowPod("web", withNamespace("default"))
	e := newEnv(t, plain, sp)
	g := e.g
	_, got := e.mustReconcile(sp)
	_, exists := e.pod(sp)
	g.Expect(exists).To(BeFalse())
	g.Expect(condition(got, meta.StalledCondition).Reason).To(Equal(NotInTwinNamespaceReason))
	g.Expect(condition(got, meta.ReadyCondition).Message).To(ContainSubstring("namespace default, which is not a twin namespace"))
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(1)), "Stalled is final for this generation")
}

func TestAPodTheShadowPodDoesNotControlIsLeftAlone(t *testing.T) {
	sp := newShadowPod("web")
	squatter := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "web", Labels: map[string]string{"team": "ops"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "debug", Image: "busybox"}}}}
	e := newEnv(t, newTwin(), sp, squatter)
	g := e.g
	_, got := e.mustReconcile(sp)
	g.Expect(condition(got, meta.StalledCondition).Reason).To(Equal(PodNameTakenReason))
	g.Expect(condition(got, meta.ReadyCondition).Message).To(ContainSubstring("not controlled by this ShadowPod: nothing was changed"))
	pod := e.mustPod(sp)
	g.Expect(pod.ResourceVersion).To(Equal(squatter.ResourceVersion))
	g.Expect(pod.Labels).To(Equal(map[string]string{"team": "ops"}))
}

func TestThePodOfAnEarlierShadowPodIsWaitedFor(t *testing.T) {
	sp := newShadowPod("web")
	earlier := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: twin, Name: "web",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: virtualkubeletv1alpha1.GroupVersion.String(), Kind: "ShadowPod",
			Name: "web", UID: otherUID, Controller: ptr.To(true)}}},
		Spec: sp.Spec.Pod}
	e := newEnv(t, newTwin(), sp, earlier)
	g := e.g
	res, got := e.mustReconcile(sp)
	g.Expect(res.RequeueAfter).To(Equal(previousPodRequeue))
	g.Expect(condition(got, meta.StalledCondition).Type).To(BeEmpty())
	g.Expect(condition(got, meta.ReadyCondition).Reason).To(Equal(PodNameTakenReason))
	g.Expect(e.mustPod(sp).OwnerReferences[0].UID).To(BeEquivalentTo(otherUID))
}

func TestThePodGetsTheProvidersNotReadyTolerationsNotTheConsumers(t *testing.T) {
	forever := func(key string) corev1.Toleration {
		return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}
	}
	gpu := corev1.Toleration{Key: "gpu", Operator: corev1.TolerationOpExists}
	sp := newShadowPod("web", func(sp *virtualkubeletv1alpha1.ShadowPod) {
		sp.Spec.Pod.Tolerations = []corev1.Toleration{forever(corev1.TaintNodeNotReady), forever(corev1.TaintNodeUnreachable), gpu}
	})
	e := newEnv(t, newTwin(), sp)
	e.mustReconcile(sp)
	e.g.Expect(e.mustPod(sp).Spec.Tolerations).To(Equal([]corev1.Toleration{gpu}),
		"the consumer's policy for its virtual node would pin the pod to a dead node of this cluster")
	// Nor are they added later, as tolerations a running pod may gain.
	e.mustReconcile(sp)
	e.g.Expect(e.mustPod(sp).Spec.Tolerations).To(Equal([]corev1.Toleration{gpu}))
}
