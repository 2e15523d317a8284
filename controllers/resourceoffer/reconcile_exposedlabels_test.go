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
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	virtualkubeletv1alpha1 "github.com/spillway-dev/spillway/api/virtualkubelet/v1alpha1"
	"github.com/spillway-dev/spillway/policies"
)

const (
	regionKey = "topology.kubernetes.io/region"
	zoneKey   = "topology.kubernetes.io/zone"
)

func exposing(keys ...string) offerOpt {
	return func(o *sharingv1alpha1.ResourceOffer) { o.Spec.ExposedLabelKeys = keys }
}

func labelledProvider(name, id string, labels map[string]string) *corev1.Node {
	n := providerNode(name, id, rl("cpu", "4"))
	for k, v := range labels {
		n.Labels[k] = v
	}
	return &n
}

// The broker's offer carries what its providers agree on, warns about what
// they do not, and follows them: a provider relabelled resolves the conflict.
func TestReconcileBrokerExposesWhatItsProvidersAgreeOn(t *testing.T) {
	offer := newOffer("rome", asBroker, exposing(regionKey, zoneKey), withLabels(map[string]string{"tier": "gold"}))
	milan := labelledProvider("liqo-milan", "milan-id", map[string]string{regionKey: "eu", zoneKey: "eu-1"})
	naples := labelledProvider("liqo-naples", "naples-id", map[string]string{regionKey: "eu", zoneKey: "eu-2"})
	e := newEnv(t, offer, milan, naples)
	g := e.g
	got := e.publish(offer)

	cm, _ := offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(cm.Data[sharingv1alpha1.OfferLabelsKey]).To(MatchJSON(`{"tier":"gold","topology.kubernetes.io/region":"eu","spillway.liqo.io/brokered":"true"}`))
	conflict := condition(got, ExposedLabelConflictCondition)
	g.Expect(conflict.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(conflict.Reason).To(Equal(ExposedLabelValuesDifferReason))
	g.Expect(conflict.Message).To(HavePrefix(`topology.kubernetes.io/zone left out: the providers' virtual nodes disagree (liqo-milan="eu-1", liqo-naples="eu-2")`))
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionTrue), "a warning, not a failure")

	naples.Labels[zoneKey] = "eu-1"
	g.Expect(e.c.Update(context.Background(), naples)).To(Succeed())
	_, got = e.mustReconcile(offer)
	cm, _ = offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(cm.Data[sharingv1alpha1.OfferLabelsKey]).To(MatchJSON(`{"tier":"gold","topology.kubernetes.io/region":"eu","topology.kubernetes.io/zone":"eu-1","spillway.liqo.io/brokered":"true"}`))
	g.Expect(condition(got, ExposedLabelConflictCondition).Type).To(BeEmpty())

	// milan NotReady: its labels drop out with its capacity.
	milan.Labels[regionKey] = "us"
	g.Expect(e.c.Update(context.Background(), milan)).To(Succeed())
	milan.Status.Conditions[0].Status = corev1.ConditionFalse
	g.Expect(e.c.Status().Update(context.Background(), milan)).To(Succeed())
	_, got = e.mustReconcile(offer)
	cm, _ = offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(cm.Data[sharingv1alpha1.OfferLabelsKey]).To(MatchJSON(`{"tier":"gold","topology.kubernetes.io/region":"eu","topology.kubernetes.io/zone":"eu-1","spillway.liqo.io/brokered":"true"}`))
	g.Expect(condition(got, ExposedLabelConflictCondition).Type).To(BeEmpty(), "a NotReady provider's labels cannot conflict")
	g.Expect(got.Spec).To(Equal(offer.Spec), "the spec, git's, is never written")
}

func TestBrokerLabelsGitWinsAndPlainOffersDeriveNothing(t *testing.T) {
	exposed := map[string]string{regionKey: "eu", zoneKey: "eu-1"}
	for _, tc := range []struct {
		name  string
		offer *sharingv1alpha1.ResourceOffer
		want  map[string]string
	}{
		{name: "spec.labels wins over a derived value", offer: newOffer("rome", asBroker, withLabels(map[string]string{regionKey: "emea"})),
			want: map[string]string{regionKey: "emea", zoneKey: "eu-1", virtualkubeletv1alpha1.BrokeredLabel: "true"}},
		{name: "a plain offer derives nothing", offer: newOffer("rome", withLabels(map[string]string{"tier": "gold"})),
			want: map[string]string{"tier": "gold"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(offeredLabels(tc.offer, exposed)).To(Equal(tc.want))
		})
	}
}

// A key git sets is neither derived nor reported as a conflict.
func TestDerivedLabelKeysLeaveOutWhatGitSets(t *testing.T) {
	g := NewWithT(t)
	offer := newOffer("rome", asBroker, exposing(regionKey, zoneKey), withLabels(map[string]string{zoneKey: "eu-9"}))
	g.Expect(derivedLabelKeys(offer)).To(Equal([]string{regionKey}))
}

func withLabelConflicts(c []policies.LabelConflict) obsOpt {
	return func(o *observation) { o.labelConflicts = c }
}

func TestExposedLabelConflictState(t *testing.T) {
	conflicts := []policies.LabelConflict{{Key: zoneKey, Values: map[string][]string{"eu-1": {"liqo-milan"}, "eu-2": {"liqo-naples"}}}}
	for _, tc := range []struct {
		name   string
		obs    observation
		active bool
	}{
		{name: "a broker's conflict", obs: newObservation(withResold("liqo-milan", "liqo-naples"), withLabelConflicts(conflicts)), active: true},
		{name: "a broker without conflict", obs: newObservation(withResold("liqo-milan"))},
		{name: "not reported while the tenant is someone else's", obs: newObservation(withResold("liqo-milan"), withLabelConflicts(conflicts),
			withConflict(tenantConflict{object: "Namespace liqo-tenant-rome", holderID: "x"}))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := exposedLabelConflictState(tc.obs)
			g.Expect(s.status).To(Equal(tc.active))
			if tc.active {
				g.Expect(s.reason).To(Equal(ExposedLabelValuesDifferReason))
				g.Expect(s.message).To(ContainSubstring(`topology.kubernetes.io/zone left out: the providers' virtual nodes disagree (liqo-milan="eu-1", liqo-naples="eu-2")`))
			}
		})
	}
}
