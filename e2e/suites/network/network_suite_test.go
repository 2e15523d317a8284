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

// Package network_test checks the network fabric on a lab of network
// namespaces: two clusters on the same pod CIDR, joined by spillway-gateway
// processes over WireGuard, reach each other's pods at remapped addresses.
package network_test

import (
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/spillway-dev/spillway/e2e/framework"
)

var theLab *lab

func TestNetwork(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "network suite")
}

// The reason each failed spec failed, right above ginkgo's closing summary.
var _ = ReportAfterSuite("failures, one line each", func(r Report) { framework.PrintFailures(os.Stdout, r) })

var _ = BeforeSuite(func() {
	if reason := hostSupport(); reason != "" {
		Skip(reason)
	}
	theLab = newLab(GinkgoT().TempDir(), GinkgoWriter)
	DeferCleanup(func() {
		Expect(theLab.destroy()).To(Succeed())
	})
	Expect(theLab.buildGateway()).To(Succeed())
	Expect(theLab.create()).To(Succeed())
	for _, c := range []string{"a", "b"} {
		_, err := theLab.publicKey(c) // creates the key files
		Expect(err).NotTo(HaveOccurred())
	}
	for _, c := range []string{"a", "b"} {
		args, err := theLab.gatewayArgs(c)
		Expect(err).NotTo(HaveOccurred())
		Expect(theLab.startGateway(c, theLab.ns("gw"+c), args)).To(Succeed())
	}
})
