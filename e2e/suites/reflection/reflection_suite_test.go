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

// Package reflection_test runs the seed's policy scenarios on the lab: venice
// consumes florence (topology.liqo.io/region=center) and naples
// (region=south). Pods carry no hand-written tolerations: the pod webhook
// places them. The rest of each offloaded namespace follows by reflection.
package reflection_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 18400

var (
	veniceID   = framework.Identity{ClusterID: "0d5e8a52-1f2b-4c7d-9e3a-6b4f8c2d1a01", ClusterName: "venice"}
	florenceID = framework.Identity{ClusterID: "7ab1158e-3c4d-4e5f-8a9b-0c1d2e3f4a02", ClusterName: "florence"}
	naplesID   = framework.Identity{ClusterID: "5eada1c7-9b8a-4f6e-8d5c-4b3a2f1e0d03", ClusterName: "naples"}

	theLab                      *lab.Lab
	venice, florence, naples    *lab.Cluster
	veniceC, florenceC, naplesC client.Client
)

func TestReflection(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "reflection and admission suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	root, err := lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "reflection", portBase,
		"venice:nodes=2 florence:nodes=2,cpu=8,memory=32Gi naples:nodes=2,cpu=8,memory=32Gi")
	Expect(err).NotTo(HaveOccurred())
	venice, veniceC, err = framework.Member(theLab, "venice")
	Expect(err).NotTo(HaveOccurred())
	florence, florenceC, err = framework.Member(theLab, "florence")
	Expect(err).NotTo(HaveOccurred())
	naples, naplesC, err = framework.Member(theLab, "naples")
	Expect(err).NotTo(HaveOccurred())
	Expect(framework.InstallAll(ctx, root, map[*lab.Cluster]framework.Identity{venice: veniceID, florence: florenceID, naples: naplesID})).To(Succeed())
	// The two peerings together: each mostly waits for its identity to cross
	// the store and its virtual node to turn Ready.
	peers, pctx := errgroup.WithContext(ctx)
	peers.Go(func() error {
		return framework.Peer(pctx, venice, veniceID, florence, florenceID, map[string]string{"topology.liqo.io/region": "center"})
	})
	peers.Go(func() error {
		return framework.Peer(pctx, venice, veniceID, naples, naplesID, map[string]string{"topology.liqo.io/region": "south"})
	})
	Expect(peers.Wait()).To(Succeed())
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})
