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

// Package peering_test runs the quick-start peering from git on the lab: milan
// offers resources to rome, rome peers with milan and gets a virtual node.
// External Secrets runs on both clusters and carries milan's identity for
// rome through the lab's store, with the PushSecret and ExternalSecret
// committed in clusters/; the suite forges Secrets only to test bad input.
package peering_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 18100

var (
	theLab                  *lab.Lab
	rome, milan             *lab.Cluster
	romeC, milanC           client.Client
	romeID, milanID         framework.Identity
	repoRoot                string
	romeConfig, milanConfig []*unstructured.Unstructured
)

func TestPeering(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "peering suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	repoRoot, err = lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "peering", portBase, "rome milan:nodes=2,cpu=8,memory=32Gi,nvidia.com/gpu=1")
	Expect(err).NotTo(HaveOccurred())
	rome, romeC, err = framework.Member(theLab, "rome")
	Expect(err).NotTo(HaveOccurred())
	milan, milanC, err = framework.Member(theLab, "milan")
	Expect(err).NotTo(HaveOccurred())

	romeID = identityOf("rome")
	milanID = identityOf("milan")
	romeConfig = labObjects(filepath.Join(repoRoot, "clusters/rome/config"))
	milanConfig = labObjects(filepath.Join(repoRoot, "clusters/milan/config"))
	Expect(framework.EnsureExternalSecrets(ctx, rome, milan)).To(Succeed())
	for _, c := range []*lab.Cluster{rome, milan} {
		Expect(framework.ApplyDir(ctx, c, filepath.Join(repoRoot, "kustomize/crd"))).To(Succeed())
		Expect(framework.Apply(ctx, c, []*unstructured.Unstructured{framework.Namespace("liqo")})).To(Succeed())
	}
	Expect(framework.StartManager(ctx, milan, milanID)).To(Succeed())
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})

func identityOf(name string) framework.Identity {
	id, err := framework.FleetIdentity(repoRoot, name)
	Expect(err).NotTo(HaveOccurred())
	return id
}

// labObjects builds a cluster's config folder and keeps Spillway's and
// External Secrets' kinds: the workloads belong to the offloading suite.
func labObjects(dir string) []*unstructured.Unstructured {
	objs, err := framework.Build(dir)
	Expect(err).NotTo(HaveOccurred())
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if group := strings.Split(o.GetAPIVersion(), "/")[0]; strings.HasSuffix(group, "liqo.io") || group == "external-secrets.io" {
			out = append(out, o)
		}
	}
	return out
}

func only(objs []*unstructured.Unstructured, kind string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range objs {
		if o.GetKind() == kind {
			out = append(out, o)
		}
	}
	Expect(out).NotTo(BeEmpty(), "no %s in the committed folder", kind)
	return out
}

func secretKey(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }
