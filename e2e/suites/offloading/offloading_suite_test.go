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

// Package offloading_test offloads namespaces and pods from rome to milan on
// the lab. Pods here carry the virtual-node toleration and node affinity
// themselves; adding them is the pod webhook's job (issue 5).
package offloading_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 18200

var (
	theLab        *lab.Lab
	rome, milan   *lab.Cluster
	romeC, milanC client.Client
	romeID        framework.Identity
	repoRoot      string
	// baselineRSS is rome's manager VmRSS (kB) before peering.
	baselineRSS string
)

func TestOffloading(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "offloading suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	repoRoot, err = lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "offloading", portBase, "rome milan:nodes=3,cpu=8,memory=32Gi")
	Expect(err).NotTo(HaveOccurred())
	rome, romeC, err = framework.Member(theLab, "rome")
	Expect(err).NotTo(HaveOccurred())
	milan, milanC, err = framework.Member(theLab, "milan")
	Expect(err).NotTo(HaveOccurred())
	romeID, err = framework.FleetIdentity(repoRoot, "rome")
	Expect(err).NotTo(HaveOccurred())
	// rome's manager alone, before any peering: the baseline of the memory
	// figure the pod specs print.
	Expect(framework.ApplyDir(ctx, rome, repoRoot+"/kustomize/crd")).To(Succeed())
	Expect(framework.Apply(ctx, rome, []*unstructured.Unstructured{framework.Namespace("liqo")})).To(Succeed())
	Expect(framework.StartManager(ctx, rome, romeID)).To(Succeed())
	baselineRSS, _ = managerRSS(rome)
	// Peering only: the namespaces and workloads are created by the specs.
	Expect(framework.QuickStart(ctx, repoRoot, rome, milan, framework.PeeringOnly)).To(Succeed())
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})
