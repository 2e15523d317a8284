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

package foreigncluster

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	discoveryv1alpha1 "github.com/spillway-dev/spillway/api/discovery/v1alpha1"
)

func TestReconcileEstablishesThePeeringThroughTheRuntime(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	r, c := newReconciler(rt, newForeignCluster(), credentialsSecret(map[string]string{"kubeconfig": kubeconfig}))
	fc := reconcileAndGet(t, r, c)
	g.Expect(readyOf(fc).Status).To(Equal(metav1.ConditionTrue), "%v", readyOf(fc))
	g.Expect(rt.ensured).To(HaveLen(1))
	p := rt.ensured[0]
	g.Expect(p.Name).To(Equal("milan"))
	g.Expect(p.ClusterID).To(Equal(providerID))
	g.Expect(p.TenantNamespace).To(Equal(tenant))
	g.Expect(p.Node.Name).To(Equal("liqo-milan"))
	g.Expect(p.Node.Capacity.Cpu().MilliValue()).To(Equal(int64(7200)))
	g.Expect(fc.Status.VirtualNodeName).To(Equal("liqo-milan"))
}

func TestReconcileRefusesUnsafeCredentialsWithoutConnecting(t *testing.T) {
	for field, cfg := range map[string]string{
		"exec":      kubeconfigWith("", "\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh}"),
		"tokenFile": kubeconfigWith("", "\n    tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token"),
		"proxy-url": kubeconfigWith("\n    proxy-url: http://127.0.0.1:3128", ""),
	} {
		t.Run(field, func(t *testing.T) {
			g := NewWithT(t)
			rt := newFakeRuntime()
			r, c := newReconciler(rt, newForeignCluster(), credentialsSecret(map[string]string{"kubeconfig": cfg}))
			fc := reconcileAndGet(t, r, c)
			ready := readyOf(fc)
			g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(ready.Reason).To(Equal(discoveryv1alpha1.InvalidCredentialsReason))
			g.Expect(ready.Message).To(And(ContainSubstring("liqo/milan-credentials"), ContainSubstring("."+field+" is not allowed")))
			g.Expect(fc.PeeringStatus(discoveryv1alpha1.AuthenticationStatusCondition)).To(Equal(discoveryv1alpha1.PeeringConditionStatusError))
			g.Expect(rt.connects).To(BeEmpty(), "no client is built from refused credentials")
			g.Expect(rt.ensured).To(BeEmpty())
		})
	}
}

func TestReconcileHealsWhenTheSecretIsFixed(t *testing.T) {
	g := NewWithT(t)
	rt := newFakeRuntime()
	bad := credentialsSecret(map[string]string{"kubeconfig": kubeconfigWith("", "\n    tokenFile: /etc/token")})
	r, c := newReconciler(rt, newForeignCluster(), bad)
	g.Expect(readyOf(reconcileAndGet(t, r, c)).Reason).To(Equal(discoveryv1alpha1.InvalidCredentialsReason))

	fixed := &corev1.Secret{}
	g.Expect(c.Get(context.Background(), client.ObjectKeyFromObject(bad), fixed)).To(Succeed())
	fixed.Data = map[string][]byte{"kubeconfig": []byte(kubeconfig)}
	g.Expect(c.Update(context.Background(), fixed)).To(Succeed())
	g.Expect(readyOf(reconcileAndGet(t, r, c)).Status).To(Equal(metav1.ConditionTrue))
	g.Expect(rt.connects).To(HaveLen(1))
}
