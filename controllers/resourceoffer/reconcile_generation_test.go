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

package resourceoffer

import (
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestObservedGenerationIsOnlySetOnceReady(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer)
	g := e.g

	_, got := e.mustReconcile(offer)
	g.Expect(got.Status.ObservedGeneration).To(Equal(int64(-1)), "kstatus must keep judging it InProgress")
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Reason).To(Equal(ConsumerTokenPendingReason))
	g.Expect(condition(got, sharingv1alpha1.ReconcilingCondition).Status).To(Equal(metav1.ConditionTrue))
	g.Expect(condition(got, sharingv1alpha1.StalledCondition).Type).To(BeEmpty())

	e.fillToken("liqo-tenant-rome", "token-1")
	_, got = e.mustReconcile(offer)
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionTrue))
	g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
	g.Expect(condition(got, sharingv1alpha1.ReconcilingCondition).Type).To(BeEmpty())
}
