//go:build e2e

// Package network_test checks the network fabric on a lab of network
// namespaces: two clusters on the same pod CIDR, joined by spillway-gateway
// processes over WireGuard, reach each other's pods at remapped addresses.
package network_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var theLab *lab

func TestNetwork(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "network suite")
}

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
