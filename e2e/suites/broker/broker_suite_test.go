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

// Package broker_test runs a broker on the lab (issue 16): rome consumes
// genoa, which consumes milan and naples and resells them to rome
// (ResourceOffer spec.broker). Every offer and peering is what the CLI writes
// (framework.PeerWithOffer: manifests.Offer and manifests.Peering), applied
// as Flux applies a folder. Simulated: kwok runs the providers' pods (no
// container runtime, so no process, log or pod network), answers logs with a
// fixed line per cluster, and answers exec into containers named "shell"
// (exec=shell: lab.KwokExecRule) by running the command on the lab's host;
// every control plane, Spillway controller and webhook is real.
package broker_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"golang.org/x/sync/errgroup"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/cli/manifests"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 19300

var (
	romeID   = framework.Identity{ClusterID: "3c0f7e1a-5b6d-4e2f-9a8b-1c2d3e4f5a11", ClusterName: "rome"}
	genoaID  = framework.Identity{ClusterID: "8d1e2f3a-4b5c-4d6e-8f7a-2b3c4d5e6f12", ClusterName: "genoa"}
	milanID  = framework.Identity{ClusterID: "b2c3d4e5-6f7a-4b8c-9d0e-3f4a5b6c7d13", ClusterName: "milan"}
	naplesID = framework.Identity{ClusterID: "e5f6a7b8-9c0d-4e1f-8a2b-4c5d6e7f8a14", ClusterName: "naples"}

	theLab                         *lab.Lab
	rome, genoa, milan, naples     *lab.Cluster
	romeC, genoaC, milanC, naplesC client.Client
)

// The providers' offers to genoa: fixed, so the sum rome must see is exact.
var (
	milanOffer  = limits("8", "16Gi", "40")
	naplesOffer = limits("4", "8Gi", "40")
)

func limits(cpu, memory, pods string) corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
		corev1.ResourcePods: resource.MustParse(pods)}
}

// offerTo is what `spillway generate offer` writes for a plain provider.
func offerTo(l corev1.ResourceList) manifests.Offer { return manifests.Offer{Limits: l} }

func TestBroker(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "broker suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	root, err := lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = framework.StartSuiteLab(ctx, "broker", portBase,
		"rome:nodes=1 genoa:nodes=1 milan:nodes=2,cpu=8,memory=32Gi,exec=shell naples:nodes=2,cpu=8,memory=32Gi,exec=shell")
	Expect(err).NotTo(HaveOccurred())
	for name, m := range map[string]struct {
		cluster **lab.Cluster
		client  *client.Client
	}{"rome": {&rome, &romeC}, "genoa": {&genoa, &genoaC}, "milan": {&milan, &milanC}, "naples": {&naples, &naplesC}} {
		*m.cluster, *m.client, err = framework.Member(theLab, name)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(framework.InstallAll(ctx, root, map[*lab.Cluster]framework.Identity{rome: romeID, genoa: genoaID, milan: milanID, naples: naplesID})).To(Succeed())
	// genoa's two providers together: each peering mostly waits for its
	// identity to cross the store and its virtual node to turn Ready.
	providers, pctx := errgroup.WithContext(ctx)
	providers.Go(func() error {
		return framework.PeerWithOffer(pctx, genoa, genoaID, milan, milanID, offerTo(milanOffer))
	})
	providers.Go(func() error {
		return framework.PeerWithOffer(pctx, genoa, genoaID, naples, naplesID, offerTo(naplesOffer))
	})
	Expect(providers.Wait()).To(Succeed())
	// `spillway generate offer rome --cluster genoa --broker --sharing-percentage 100`
	hundred := int32(100)
	Expect(framework.PeerWithOffer(ctx, rome, romeID, genoa, genoaID, manifests.Offer{Broker: true, SharingPercentage: &hundred})).To(Succeed())
}, NodeTimeout(6*time.Minute))

var _ = AfterSuite(func() {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})
