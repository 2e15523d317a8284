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
	"errors"
	"testing"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/controllers/fluxstatus"
)

// deletedEnv is a deleted offloading of apps whose twin milan holds, with an
// offloaded pod on milan's virtual node and a local pod.
func deletedEnv(t *testing.T) *env {
	t.Helper()
	e := newEnv(t, newOffloading(withFinalizer, withDeleting, withRemoteName), virtualNode("milan"),
		pod("web-1", "liqo-milan"), pod("db-0", "worker-1"))
	milan := e.connect("milan")
	_, err := milan.CoreV1().ConfigMaps(tenantNs).Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: sharingv1alpha1.TwinRequestName(twinName)},
		Data:       map[string]string{sharingv1alpha1.TwinRemoteNamespaceKey: twinName, sharingv1alpha1.TwinLocalNamespaceKey: localNs},
	}, metav1.CreateOptions{})
	e.g.Expect(err).NotTo(HaveOccurred())
	return e
}

func (e *env) podExists(name string) bool {
	err := e.c.Get(context.Background(), client.ObjectKey{Namespace: localNs, Name: name}, &corev1.Pod{})
	e.g.Expect(client.IgnoreNotFound(err)).NotTo(HaveOccurred())
	return err == nil
}

func (e *env) offloadingGone() bool {
	err := e.c.Get(context.Background(), reqFor(offloadingv1alpha1.RequiredName).NamespacedName, &offloadingv1alpha1.NamespaceOffloading{})
	e.g.Expect(client.IgnoreNotFound(err)).NotTo(HaveOccurred())
	return apierrors.IsNotFound(err)
}

func TestDeletionEvictsOffloadedPodsFirst(t *testing.T) {
	e := deletedEnv(t)
	milan := e.providers["milan"]

	res, no := e.mustReconcile()

	e.g.Expect(e.podExists("web-1")).To(BeFalse(), "the offloaded pod is deleted; its controller recreates it locally")
	e.g.Expect(e.podExists("db-0")).To(BeTrue(), "a local pod is not touched")
	e.g.Expect(twinRequest(e.g, milan)).NotTo(BeNil(), "the twin stays until the offloaded pods are gone")
	e.g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.TerminatingOffloadingPhase))
	e.g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(Equal("unoffloading: 1 offloaded pod(s) still terminating"))
	e.g.Expect(no.Finalizers).To(ConsistOf(Finalizer))
	e.g.Expect(res.RequeueAfter).To(Equal(fastResync))
}

func TestDeletionWithdrawsTheTwinThenReleasesTheObject(t *testing.T) {
	e := deletedEnv(t)
	milan := e.providers["milan"]
	e.mustReconcile() // the offloaded pod goes

	_, err := e.reconcile()

	e.g.Expect(err).NotTo(HaveOccurred())
	e.g.Expect(twinRequest(e.g, milan)).To(BeNil())
	e.g.Expect(e.offloadingGone()).To(BeTrue(), "the finalizer is released once no provider holds the twin")
}

func TestDeletionWaitsForTheProviderToRemoveTheTwin(t *testing.T) {
	e := deletedEnv(t)
	milan := e.providers["milan"]
	// The provider's request has a finalizer of its own: deleting it only marks it.
	milan.PrependReactor("delete", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, nil })
	e.mustReconcile()

	res, no := e.mustReconcile()

	e.g.Expect(twinRequest(e.g, milan)).NotTo(BeNil())
	e.g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(Equal("unoffloading: waiting for 1 provider(s) to remove the twin namespace"))
	e.g.Expect(no.Finalizers).To(ConsistOf(Finalizer))
	e.g.Expect(res.RequeueAfter).To(Equal(fastResync))
}

func TestDeletionKeepsTheFinalizerWhileAProviderFails(t *testing.T) {
	for _, verb := range []string{"delete", "get"} {
		t.Run(verb, func(t *testing.T) {
			e := deletedEnv(t)
			milan := e.providers["milan"]
			e.mustReconcile()
			milan.PrependReactor(verb, "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, errors.New("connection refused")
			})

			_, err := e.reconcile()

			e.g.Expect(err).To(MatchError(ContainSubstring("connection refused")))
			e.g.Expect(e.offloadingGone()).To(BeFalse(), "a provider that cannot be asked may still hold the twin")
			e.g.Expect(e.offloading().Finalizers).To(ConsistOf(Finalizer))
		})
	}
}

func TestDeletionLeavesAPeerThatIsNotConnectedAlone(t *testing.T) {
	e := deletedEnv(t)
	milan := e.providers["milan"]
	e.r.Peers.Delete("milan-id") // the peering went down; a broken peer never loses its workloads
	e.mustReconcile()

	_, err := e.reconcile()

	e.g.Expect(err).NotTo(HaveOccurred())
	e.g.Expect(twinRequest(e.g, milan)).NotTo(BeNil())
	e.g.Expect(e.offloadingGone()).To(BeTrue())
}

func TestDeletionEvictsThroughTheEvictionAPIAndShowsTheBudgetThatRefuses(t *testing.T) {
	e := deletedEnv(t)
	budget := "The disruption budget web needs 1 healthy pods and has 1 currently"
	refused := 0
	e.intercept(interceptor.Funcs{SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj client.Object, req client.Object, opts ...client.SubResourceCreateOption) error {
		if sub != "eviction" {
			return c.SubResource(sub).Create(ctx, obj, req, opts...)
		}
		refused++
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: budget}}
		return err
	}})

	res, no := e.mustReconcile()

	e.g.Expect(refused).To(Equal(1), "the offloaded pod is evicted, not deleted; the local pod is not asked")
	e.g.Expect(e.podExists("web-1")).To(BeTrue(), "a pod its budget protects stays")
	e.g.Expect(conditions.GetMessage(no, meta.ReadyCondition)).To(Equal(
		"unoffloading: 1 offloaded pod(s) still to evict; the eviction of pod web-1 is refused by a PodDisruptionBudget: " + budget))
	e.g.Expect(no.Finalizers).To(ConsistOf(Finalizer))
	e.g.Expect(res.RequeueAfter).To(Equal(fastResync), "the budget is asked again on the next pass")
}

func TestDeletionRemovesTheSchedulingLabelItSetLast(t *testing.T) {
	e := deletedEnv(t)
	e.labelNamespace(fluxstatus.FieldOwner)
	e.mustReconcile() // the offloaded pod goes
	e.g.Expect(e.namespaceLabels()).To(HaveKey(offloadingv1alpha1.SchedulingEnabledLabel), "kept while the twin is withdrawn")

	_, err := e.reconcile()

	e.g.Expect(err).NotTo(HaveOccurred())
	e.g.Expect(e.offloadingGone()).To(BeTrue())
	e.g.Expect(e.namespaceLabels()).NotTo(HaveKey(offloadingv1alpha1.SchedulingEnabledLabel), "new pods of the namespace are admitted again")
}

func TestDeletionLeavesASchedulingLabelFromGitAlone(t *testing.T) {
	e := deletedEnv(t)
	e.labelNamespace("kustomize-controller")
	e.mustReconcile()

	_, err := e.reconcile()

	e.g.Expect(err).NotTo(HaveOccurred())
	e.g.Expect(e.offloadingGone()).To(BeTrue())
	e.g.Expect(e.namespaceLabels()).To(HaveKey(offloadingv1alpha1.SchedulingEnabledLabel), "removing a label git declares would be drift")
}
