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

package namespaceoffloading

import (
	"context"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
)

func TestFirstReconcileRequestsTheTwinAndWaitsForTheProvider(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan"))
	milan := e.connect("milan")

	res, no := e.mustReconcile()

	e.g.Expect(controllerutil.ContainsFinalizer(no, Finalizer)).To(BeTrue(), "the finalizer is stored before any twin is requested")
	req := twinRequest(e.g, milan)
	e.g.Expect(req).NotTo(BeNil())
	e.g.Expect(req.Labels).To(HaveKeyWithValue(sharingv1alpha1.TwinRequestLabel, "true"))
	e.g.Expect(req.Data).To(Equal(map[string]string{sharingv1alpha1.TwinRemoteNamespaceKey: twinName, sharingv1alpha1.TwinLocalNamespaceKey: localNs}))
	e.g.Expect(no.Status.RemoteNamespaceName).To(Equal(twinName))
	e.g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.InProgressOffloadingPhase))
	e.g.Expect(remoteCondition(no, "milan", offloadingv1alpha1.NamespaceReadyCondition)).To(HaveField("Reason", "NamespaceRequested"))
	e.g.Expect(ready(no)).To(HaveField("Status", metav1.ConditionFalse))
	e.g.Expect(conditions.IsReconciling(no)).To(BeTrue(), "waiting for the provider is progress, not a failure")
	e.g.Expect(no.Status.ObservedGeneration).To(Equal(int64(-1)), "the generation is not observed until Ready")
	e.g.Expect(res.RequeueAfter).To(Equal(fastResync))

	ns := &corev1.Namespace{}
	e.g.Expect(e.c.Get(context.Background(), client.ObjectKey{Name: localNs}, ns)).To(Succeed())
	e.g.Expect(ns.Labels).To(HaveKeyWithValue(offloadingv1alpha1.SchedulingEnabledLabel, offloadingv1alpha1.SchedulingEnabledValue),
		"the pod webhook acts in the namespace")
}

func TestProviderAnswerMakesTheOffloadingReady(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan"))
	milan := e.connect("milan")
	e.mustReconcile()
	answer(e.g, milan, sharingv1alpha1.TwinPhaseReady, "twin namespace ready")

	res, no := e.mustReconcile()

	e.g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
	e.g.Expect(ready(no)).To(And(HaveField("Status", metav1.ConditionTrue), HaveField("Reason", "NamespaceOffloaded")))
	e.g.Expect(ready(no).Message).To(ContainSubstring(twinName))
	e.g.Expect(remoteCondition(no, "milan", offloadingv1alpha1.NamespaceReadyCondition)).To(HaveField("Status", metav1.ConditionTrue))
	e.g.Expect(conditions.Has(no, meta.ReconcilingCondition)).To(BeFalse())
	e.g.Expect(no.Status.ObservedGeneration).To(Equal(int64(1)))
	e.g.Expect(res.RequeueAfter).To(Equal(slowResync))
}

func TestProviderConflictIsReportedPerCluster(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan"), virtualNode("naples"))
	milan, naples := e.connect("milan"), e.connect("naples")
	e.mustReconcile()
	answer(e.g, milan, sharingv1alpha1.TwinPhaseReady, "twin namespace ready")
	answer(e.g, naples, sharingv1alpha1.TwinPhaseConflict, "namespace "+twinName+" belongs to someone else")

	_, no := e.mustReconcile()

	e.g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.SomeFailedOffloadingPhase))
	e.g.Expect(remoteCondition(no, "naples", offloadingv1alpha1.NamespaceReadyCondition)).To(
		HaveField("Reason", offloadingv1alpha1.NamespaceNameConflictReason))
	e.g.Expect(remoteCondition(no, "milan", offloadingv1alpha1.NamespaceReadyCondition)).To(HaveField("Status", metav1.ConditionTrue))
	e.g.Expect(ready(no).Message).To(ContainSubstring("naples: namespace " + twinName + " belongs to someone else"))
}

func TestAPeerWhosePeeringIsDownIsReportedNotRequested(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan"), virtualNode("naples"))
	milan := e.connect("milan") // naples' virtual node exists, its peering is not up

	_, no := e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).NotTo(BeNil())
	e.g.Expect(remoteCondition(no, "naples", offloadingv1alpha1.NamespaceReadyCondition)).To(And(
		HaveField("Status", metav1.ConditionFalse), HaveField("Message", "the peering with this cluster is not established")))
	e.g.Expect(ready(no).Message).To(ContainSubstring("naples: peering not established"))
}

// TestARequestMadeAsThePeerIsWithdrawnIsTakenBack: unpeering withdraws the
// peer, then releases the requests it finds on the provider; a request this
// reconcile creates after that would stay on the provider for good.
func TestARequestMadeAsThePeerIsWithdrawnIsTakenBack(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan"))
	milan := e.connect("milan")
	milan.PrependReactor("create", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		e.r.Peers.Delete("milan-id") // unpeering, while the create is on its way
		return false, nil, nil
	})

	_, no := e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).To(BeNil(), "taken back: unpeering would never see it")
	e.g.Expect(remoteCondition(no, "milan", offloadingv1alpha1.NamespaceReadyCondition)).To(
		HaveField("Message", "the peering with this cluster is not established"))
}

func TestUnselectedPeerLosesItsTwinRequest(t *testing.T) {
	e := newEnv(t, newOffloading(), virtualNode("milan", "region", "north"), virtualNode("naples", "region", "south"))
	milan, naples := e.connect("milan"), e.connect("naples")
	e.mustReconcile()
	e.g.Expect(twinRequest(e.g, naples)).NotTo(BeNil())

	no := e.offloading()
	withSelector("region", "north")(no)
	e.g.Expect(e.c.Update(context.Background(), no)).To(Succeed())
	_, no = e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).NotTo(BeNil())
	e.g.Expect(twinRequest(e.g, naples)).To(BeNil(), "the request is withdrawn from a peer no longer selected")
	e.g.Expect(remoteCondition(no, "naples", offloadingv1alpha1.NamespaceOffloadingRequiredCondition)).To(And(
		HaveField("Status", metav1.ConditionFalse), HaveField("Reason", offloadingv1alpha1.ClusterNotSelectedReason)))
}

func TestASelectorMatchingNoPeerOffloadsNothing(t *testing.T) {
	e := newEnv(t, newOffloading(withSelector("region", "mars")), virtualNode("milan", "region", "north"))
	milan := e.connect("milan")

	_, no := e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).To(BeNil())
	e.g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.NoClusterSelectedOffloadingPhase))
	e.g.Expect(ready(no).Message).To(ContainSubstring("check the selector against the virtual nodes' labels"))
}

func TestTwinRequestOfAnotherNamespaceIsAConflict(t *testing.T) {
	e := newEnv(t, newOffloading(withSelector("region", "north")), virtualNode("milan", "region", "north"))
	milan := e.connect("milan")
	_, err := milan.CoreV1().ConfigMaps(tenantNs).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: sharingv1alpha1.TwinRequestName(twinName), Labels: map[string]string{sharingv1alpha1.TwinRequestLabel: "true"}},
		Data:       map[string]string{sharingv1alpha1.TwinRemoteNamespaceKey: twinName, sharingv1alpha1.TwinLocalNamespaceKey: "other"},
	}, metav1.CreateOptions{})
	e.g.Expect(err).NotTo(HaveOccurred())

	_, no := e.mustReconcile()

	e.g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.AllFailedOffloadingPhase))
	e.g.Expect(remoteCondition(no, "milan", offloadingv1alpha1.NamespaceReadyCondition).Message).To(
		ContainSubstring(`already requested for local namespace "other"`))
	e.g.Expect(twinRequest(e.g, milan).Data).To(HaveKeyWithValue(sharingv1alpha1.TwinLocalNamespaceKey, "other"), "another namespace's request is left alone")
}
