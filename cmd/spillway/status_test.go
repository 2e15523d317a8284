package main

import (
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

// The rendering is tested in cli/status with a fake client; here, that a
// cluster that cannot be reached is one error line and exit 1.
func TestStatusWithoutAReachableClusterExits1(t *testing.T) {
	g := NewWithT(t)
	r := spillway("status", "--kubeconfig", filepath.Join(t.TempDir(), "missing"))
	g.Expect(r.code).To(Equal(1))
	g.Expect(lines(r.stderr)).To(HaveLen(1))
	g.Expect(r.stderr).To(HavePrefix("spillway: reading the kubeconfig"))

	r = spillway("status", "peer")
	g.Expect(r.code).To(Equal(2))
	g.Expect(r.stderr).To(ContainSubstring("spillway status peer takes 1 argument(s)"))
}
