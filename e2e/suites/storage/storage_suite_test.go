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

// Package storage_test runs the seed's stateful applications on two lab
// clusters: rome consumes, milan provides, each with a real dynamic
// provisioner (rancher's local-path-provisioner, run as a lab process whose
// helper pods kwok completes) as its default class.
package storage_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 19000

var (
	theLab        *lab.Lab
	rome, milan   *lab.Cluster
	romeC, milanC client.Client
	repoRoot      string
)

func TestStorage(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "storage suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	repoRoot, err = lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	// One worker on rome: with the virtual node, a hard anti-affinity of two
	// replicas puts exactly one on each side.
	theLab, err = framework.StartSuiteLab(ctx, "storage", portBase, "rome:nodes=1 milan:nodes=2")
	Expect(err).NotTo(HaveOccurred())
	rome, romeC, err = framework.Member(theLab, "rome")
	Expect(err).NotTo(HaveOccurred())
	milan, milanC, err = framework.Member(theLab, "milan")
	Expect(err).NotTo(HaveOccurred())
	for _, c := range []*lab.Cluster{rome, milan} {
		Expect(framework.InstallLocalPath(ctx, c)).To(Succeed())
		Expect(framework.ApplyDir(ctx, c, filepath.Join(repoRoot, "kustomize/storage"))).To(Succeed())
	}
	Expect(framework.QuickStartWith(ctx, repoRoot, rome, milan, framework.PeeringOnly, nil)).To(Succeed())
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})

// namespace creates ns on c and deletes it when the spec ends.
func namespace(ctx context.Context, c client.Client, ns string) {
	Expect(c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
	})
}

// offloadNamespace creates ns on rome, open to scheduling, with a
// NamespaceOffloading (DefaultName mapping, LocalAndRemote); deletes ns when
// the spec or container ends; and returns milan's twin once it is Ready.
func offloadNamespace(ctx context.Context, ns string) string {
	Expect(romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns,
		Labels: map[string]string{offloadingv1alpha1.SchedulingEnabledLabel: offloadingv1alpha1.SchedulingEnabledValue}}})).To(Succeed())
	DeferCleanup(func(ctx context.Context) {
		Expect(client.IgnoreNotFound(romeC.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}))).To(Succeed())
	})
	Expect(romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: offloadingv1alpha1.RequiredName},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.DefaultNameMappingStrategy,
			PodOffloadingStrategy: offloadingv1alpha1.LocalAndRemotePodOffloadingStrategy}})).To(Succeed())
	var twin string
	Eventually(func(g Gomega) {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		g.Expect(romeC.Get(ctx, client.ObjectKey{Namespace: ns, Name: offloadingv1alpha1.RequiredName}, no)).To(Succeed())
		g.Expect(no.Status.OffloadingPhase).To(Equal(offloadingv1alpha1.ReadyOffloadingPhase))
		twin = no.Status.RemoteNamespaceName
	}).WithContext(ctx).WithTimeout(60 * time.Second).Should(Succeed())
	return twin
}
