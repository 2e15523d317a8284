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

// Package gitops_test runs clusters/rome and clusters/milan on the lab the
// way a Flux user runs them: real source-controller and kustomize-controller
// reconcile the fleet from the lab's git server, real External Secrets carries
// milan's identity for rome through the store, and the suite checks the Flux
// contract: every Kustomization Ready with health checks on every Spillway
// kind, nothing applied again once the controllers have run (kustomize-
// controller's apply log all "unchanged", `flux diff` empty), a hand edit
// reverted, a config folder removed in git pruned and unpeered, and the two
// clusters converging when their configs come back in the reverse order.
//
// Nothing here applies a Spillway object or copies a Secret: the suite only
// commits to the fleet and asks Flux to reconcile. The manager runs as a lab
// process standing in for the Deployment liqo/spillway-controller, whose pod
// kwok reports Running.
package gitops_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 18300

var (
	theLab        *lab.Lab
	rome, milan   *lab.Cluster
	romeC, milanC client.Client
	repoRoot      string
	gitops        *framework.GitOps
	pushed        time.Time
)

func TestGitOps(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "gitops suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	repoRoot, err = lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	_, err = framework.ResolveGitOpsTools(os.Stderr)
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "gitops", portBase, "rome milan:nodes=2,cpu=8,memory=32Gi")
	Expect(err).NotTo(HaveOccurred())
	rome, romeC, err = framework.Member(theLab, "rome")
	Expect(err).NotTo(HaveOccurred())
	milan, milanC, err = framework.Member(theLab, "milan")
	Expect(err).NotTo(HaveOccurred())
	pushed = time.Now()
	// A short webhook check interval: the uninstall spec waits for the
	// webhook configurations to be republished.
	gitops, err = framework.StartGitOps(ctx, repoRoot, theLab, []*lab.Cluster{rome, milan}, os.Stderr,
		func(*lab.Cluster) []string { return []string{"--webhook-check-interval=2s"} })
	Expect(err).NotTo(HaveOccurred())
}, NodeTimeout(15*time.Minute))

var _ = AfterSuite(func(ctx context.Context) {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})
