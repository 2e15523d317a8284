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

// Package lab_test checks the lab itself: real control planes start, schedule
// onto kwok nodes, survive an API server restart, and refuse bad input clearly.
package lab_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

const portBase = 18000

var theLab *lab.Lab

func TestLab(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "lab suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func(ctx context.Context) {
	start := time.Now()
	var err error
	theLab, err = lab.StartForSuite(ctx, "lab", portBase, lab.MustSpecs("rome milan:nodes=3,nvidia.com/gpu=1,label.topology.liqo.io/region=north"), false)
	Expect(err).NotTo(HaveOccurred())
	GinkgoWriter.Printf("lab of two clusters started in %s\n", time.Since(start).Round(100*time.Millisecond))
}, NodeTimeout(10*time.Minute))

var _ = AfterSuite(func() {
	if theLab == nil {
		return
	}
	var pids []*lab.Cluster
	pids = append(pids, theLab.Clusters()...)
	Expect(theLab.Down()).To(Succeed())
	for _, c := range pids {
		for _, comp := range lab.Components {
			Expect(c.Running(comp)).To(BeFalse(), "%s/%s still running after Down", c.Name, comp)
		}
	}
})
