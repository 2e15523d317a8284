//go:build e2e

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

// Package trust_test proves the trust boundary between a consumer and a
// provider from the consumer's side of it: rome talks to milan's API server
// with the very credentials milan issued it (the tenant ServiceAccount token
// in rome's liqo/milan-credentials Secret), and milan must refuse every
// ShadowPod that would be more than an ordinary pod, on create and on update,
// and never admit more than the offer, however many creates race.
package trust_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
	"github.com/spillway-dev/spillway/policies"
)

// portBase: 18000-18400 are the other suites, 18500 and 18640 the benches,
// 18700 the network suite's managed lab.
const portBase = 18800

// offloadedNamespace is rome's namespace whose twin on milan the specs write to.
const offloadedNamespace = "trust"

var (
	theLab        *lab.Lab
	rome, milan   *lab.Cluster
	romeC, milanC client.Client
	// tenantC is milan's API server as rome's consumer identity sees it.
	tenantC client.Client
	romeID  framework.Identity
	twin    string
)

func TestTrust(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "trust boundary suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	root, err := lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "trust", portBase, "rome milan:nodes=2,cpu=8,memory=32Gi")
	Expect(err).NotTo(HaveOccurred())
	rome, romeC, err = framework.Member(theLab, "rome")
	Expect(err).NotTo(HaveOccurred())
	milan, milanC, err = framework.Member(theLab, "milan")
	Expect(err).NotTo(HaveOccurred())
	romeID, err = framework.FleetIdentity(root, "rome")
	Expect(err).NotTo(HaveOccurred())
	Expect(framework.QuickStart(ctx, root, rome, milan, framework.PeeringOnly)).To(Succeed())

	creds := &corev1.Secret{}
	Expect(romeC.Get(ctx, client.ObjectKey{Namespace: "liqo", Name: "milan-credentials"}, creds)).To(Succeed())
	cfg, err := consumerConfig(creds)
	Expect(err).NotTo(HaveOccurred())
	// 50 creates at once must reach the webhook at once, not queue in client-go.
	cfg.QPS, cfg.Burst = 200, 200
	tenantC, err = client.New(cfg, client.Options{Scheme: framework.Scheme()})
	Expect(err).NotTo(HaveOccurred())

	// A twin to write ShadowPods into, as rome's offloading makes it.
	Expect(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: offloadedNamespace}})).To(Succeed())
	Expect(romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: offloadedNamespace}})).To(Succeed())
	twin = policies.RemoteNamespaceName(offloadingv1alpha1.DefaultNameMappingStrategy, offloadedNamespace, romeID.ClusterName, romeID.ClusterID)
	Eventually(func(g Gomega) {
		ns := &corev1.Namespace{}
		g.Expect(milanC.Get(ctx, client.ObjectKey{Name: twin}, ns)).To(Succeed())
		g.Expect(ns.Labels).To(HaveKeyWithValue(sharingv1alpha1.TwinNamespaceLabel, romeID.ClusterID))
	}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
	// The consumer's RoleBinding in the twin is created after the namespace.
	Eventually(func() error {
		return tenantC.List(ctx, &corev1.PodList{}, client.InNamespace(twin))
	}).WithContext(ctx).WithTimeout(time.Minute).Should(Succeed())
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})

// consumerConfig is what rome's ForeignCluster controller makes of the
// credentials Secret: a kubeconfig, or server, ca.crt and token. Nothing of
// the lab's admin credentials is used.
func consumerConfig(s *corev1.Secret) (*rest.Config, error) {
	if kc, ok := s.Data[sharingv1alpha1.IdentityKubeconfigKey]; ok {
		return clientcmd.RESTConfigFromKubeConfig(kc)
	}
	server, token := string(s.Data[sharingv1alpha1.IdentityServerKey]), string(s.Data[sharingv1alpha1.IdentityTokenKey])
	if server == "" || token == "" {
		return nil, fmt.Errorf("secret %s/%s has neither a kubeconfig nor server and token", s.Namespace, s.Name)
	}
	return &rest.Config{Host: server, BearerToken: token,
		TLSClientConfig: rest.TLSClientConfig{CAData: s.Data[sharingv1alpha1.IdentityCAKey]}}, nil
}
