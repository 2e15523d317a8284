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
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func offerConfigMap(e *env, tenant string) (*corev1.ConfigMap, corev1.ResourceList) {
	e.t.Helper()
	cm := &corev1.ConfigMap{}
	e.g.Expect(e.get(client.ObjectKey{Namespace: tenant, Name: sharingv1alpha1.OfferConfigMapName}, cm)).To(Succeed())
	resources := corev1.ResourceList{}
	e.g.Expect(json.Unmarshal([]byte(cm.Data[sharingv1alpha1.OfferResourcesKey]), &resources)).To(Succeed())
	return cm, resources
}

func TestReconcilePublishesAPercentageOfFreeAllocatable(t *testing.T) {
	offer := newOffer("rome", withLabels(map[string]string{sharingv1alpha1.TopologyRegionLabel: "north"}))
	e := newEnv(t, offer,
		newNode("n1", rl("cpu", "8", "memory", "32Gi", "pods", "110")),
		newPod("default", "web", "n1", rl("cpu", "2", "memory", "2Gi"), nil))
	g := e.g
	got := e.publish(offer)

	// 90% of (8 - 2) cpu and of (32 - 2) Gi.
	g.Expect(got.Status.Offered.Cpu().String()).To(Equal("5400m"))
	g.Expect(got.Status.Offered.Memory().Value()).To(Equal(int64(30) << 30 * 90 / 100))
	g.Expect(condition(got, ResourcesRoundedToZeroCondition).Type).To(BeEmpty())
	ready := condition(got, sharingv1alpha1.ReadyCondition)
	g.Expect(ready.Reason).To(Equal(sharingv1alpha1.OfferPublishedReason))
	g.Expect(ready.Message).To(And(HavePrefix("offering cpu=5400m, memory="),
		HaveSuffix("to cluster rome-id through namespace liqo-tenant-rome")))

	cm, resources := offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(cm.Data).To(HaveKeyWithValue(sharingv1alpha1.OfferProviderClusterIDKey, providerID))
	g.Expect(cm.Data).To(HaveKeyWithValue(sharingv1alpha1.OfferProviderClusterNameKey, providerName))
	g.Expect(cm.Data).To(HaveKeyWithValue(sharingv1alpha1.OfferConsumerClusterIDKey, "rome-id"))
	g.Expect(cm.Data).To(HaveKeyWithValue(sharingv1alpha1.OfferReadyKey, "true"))
	g.Expect(cm.Data[sharingv1alpha1.OfferLabelsKey]).To(MatchJSON(`{"topology.liqo.io/region":"north"}`))
	for name, q := range got.Status.Offered {
		g.Expect(q.Cmp(resources[name])).To(Equal(0), string(name))
	}
	g.Expect(resources).To(HaveLen(len(got.Status.Offered)))
}

func TestReconcileResizesAPercentageOfferAsNodesJoin(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer, newNode("n1", rl("cpu", "8")))
	g := e.g
	e.publish(offer)
	g.Expect(e.c.Create(context.Background(), newNode("n2", rl("cpu", "8")))).To(Succeed())

	res, got := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(Equal(percentageResync), "a percentage offer is re-read periodically as a safety net")
	g.Expect(got.Status.Offered.Cpu().String()).To(Equal("14400m"))
	_, resources := offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(resources.Cpu().String()).To(Equal("14400m"))
}

func TestReconcileWarnsWhenAGPURoundsToZero(t *testing.T) {
	offer := newOffer("rome")
	e := newEnv(t, offer, newNode("gpu-node", rl("cpu", "8", "nvidia.com/gpu", "1")))
	g := e.g
	got := e.publish(offer)

	rz := condition(got, ResourcesRoundedToZeroCondition)
	g.Expect(rz.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(rz.Reason).To(Equal(ResourceRoundedToZeroReason))
	g.Expect(rz.Message).To(ContainSubstring("nvidia.com/gpu: 90% of 1 free rounds down to 0"))
	g.Expect(condition(got, sharingv1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionTrue), "a warning, not a failure")
	gpu := got.Status.Offered[corev1.ResourceName("nvidia.com/gpu")]
	g.Expect(gpu.IsZero()).To(BeTrue())

	// Raising the percentage in git clears the warning.
	got.Spec.SharingPercentage = new(int32(100))
	got.Generation++
	g.Expect(e.c.Update(context.Background(), got)).To(Succeed())
	_, got = e.mustReconcile(got)
	g.Expect(condition(got, ResourcesRoundedToZeroCondition).Type).To(BeEmpty())
}

func TestReconcilePublishesFixedLimitsVerbatim(t *testing.T) {
	offer := newOffer("rome", withLimits(rl("cpu", "100", "memory", "1Ti", "nvidia.com/gpu", "2")))
	e := newEnv(t, offer, newNode("small", rl("cpu", "1")))
	g := e.g
	got := e.publish(offer)
	g.Expect(got.Status.Offered).To(Equal(rl("cpu", "100", "memory", "1Ti", "nvidia.com/gpu", "2")))
	_, resources := offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(resources).To(Equal(rl("cpu", "100", "memory", "1Ti", "nvidia.com/gpu", "2")))
	res, _ := e.mustReconcile(offer)
	g.Expect(res.RequeueAfter).To(Equal(fixedResync))
}

func TestReconcileRepairsATamperedOffer(t *testing.T) {
	offer := newOffer("rome", withLimits(rl("cpu", "4")))
	e := newEnv(t, offer)
	g := e.g
	e.publish(offer)
	cm, _ := offerConfigMap(e, "liqo-tenant-rome")
	cm.Data[sharingv1alpha1.OfferResourcesKey] = `{"cpu":"400"}`
	g.Expect(e.c.Update(context.Background(), cm)).To(Succeed())
	e.mustReconcile(offer)
	_, resources := offerConfigMap(e, "liqo-tenant-rome")
	g.Expect(resources.Cpu().String()).To(Equal("4"))
}
