//go:build e2e

// Package gitops_test applies clusters/rome and clusters/milan to the lab the
// way Flux does (fluxcd/pkg/ssa, field manager kustomize-controller, in the
// layers of clusters/<name>/flux) and proves the Flux contract: every object
// becomes kstatus Current, nothing drifts once the controllers have run, and
// the folder converges whatever the order it is applied in.
//
// One stand-in, in e2e/framework and said so wherever used: no External
// Secrets operator runs in the lab, so the ExternalSecret and PushSecret of
// the folders are left out (framework.LabObjects) and the suite copies
// milan's identity Secret to rome itself (CopySecret). Pods are placed by the
// manager's own pod webhook.
package gitops_test

import (
	"context"
	"path/filepath"
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
)

func TestGitOps(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "gitops suite")
}

var _ = BeforeSuite(func(ctx context.Context) {
	var err error
	repoRoot, err = lab.RepoRoot()
	Expect(err).NotTo(HaveOccurred())
	_, err = framework.Binaries()
	Expect(err).NotTo(HaveOccurred())
	theLab, err = lab.StartForSuite(ctx, "gitops", portBase, lab.MustSpecs("rome milan:nodes=2,cpu=8,memory=32Gi"), false)
	Expect(err).NotTo(HaveOccurred())
	rome, _ = theLab.Cluster("rome")
	milan, _ = theLab.Cluster("milan")
	romeC, err = framework.Client(rome)
	Expect(err).NotTo(HaveOccurred())
	milanC, err = framework.Client(milan)
	Expect(err).NotTo(HaveOccurred())

	// The first two Flux layers, spillway-crds and spillway-install, on both
	// clusters; the manager itself runs as a process of the lab (the
	// Deployment applied with install/ runs on kwok nodes and does nothing).
	for _, c := range []*lab.Cluster{rome, milan} {
		for _, layer := range []string{"crds", "install"} {
			objs := layerObjects(c.Name, layer)
			Expect(applyStaged(ctx, c, objs)).Error().NotTo(HaveOccurred())
			Expect(framework.WaitForObjects(ctx, c, objs)).To(Succeed(), "%s: %s layer not Current", c.Name, layer)
		}
		id, err := framework.IdentityOf(filepath.Join(repoRoot, "clusters", c.Name, "install"))
		Expect(err).NotTo(HaveOccurred())
		// A short check interval: the uninstall spec waits for the
		// webhook configurations to be republished.
		Expect(framework.StartManager(ctx, c, id, "--webhook-check-interval=2s")).To(Succeed())
	}
}, NodeTimeout(15*time.Minute))

var _ = AfterSuite(func(ctx context.Context) {
	Expect(lab.TearDownSuite(theLab)).To(Succeed())
})
