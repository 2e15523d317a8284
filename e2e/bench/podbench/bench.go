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

package podbench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// PortBase is the benchmark lab's loopback port block.
const PortBase = 18500

// Namespaces of the paths: the consumer's offloaded namespace, the
// provider's namespace for pods created there directly, and the consumer's
// namespace for pods that stay on its own nodes (Local).
const (
	OffloadedNamespace = "bench-offloaded"
	VanillaNamespace   = "bench-vanilla"
	LocalNamespace     = "bench-local"
)

// Bench is a peered lab, rome consuming milan, and with two hops also the
// broker genoa reselling milan to rome, ready to run batches.
type Bench struct {
	Config      Config
	Lab         *lab.Lab
	Rome, Milan *lab.Cluster
	// Genoa is the broker, nil when the run leaves two hops out.
	Genoa           *lab.Cluster
	romeID, milanID framework.Identity
	// romeC, milanC and genoaC are admin clients; romeCS and milanCS the creators'.
	romeC, milanC, genoaC client.Client
	romeCS, milanCS       kubernetes.Interface
	// twin is the offloaded namespace's name on milan.
	twin string
	// genoaTwin is the two-hop namespace's twin on genoa, and
	// milanTwinOfTwin that twin's own twin on milan, where its pods run.
	genoaTwin, milanTwinOfTwin string
	// resultsDir receives the manager's profiles.
	resultsDir string
	log        io.Writer
}

// Setup starts the lab in <root>/.lab-e2e/bench-pods with the same client QPS
// for every cluster's controller-manager and scheduler, peers rome with milan
// from clusters/ as the offloading suite does, with two hops makes genoa a
// broker between them as e2e/suites/broker does, and offloads the
// benchmark's namespaces.
func Setup(ctx context.Context, root string, cfg Config, log io.Writer) (*Bench, error) {
	if _, err := framework.Binaries(); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, ".lab-e2e", "bench-pods")
	if err := lab.DownDir(dir); err != nil {
		return nil, fmt.Errorf("clearing the previous benchmark lab in %s: %w", dir, err)
	}
	specs, err := lab.ParseClusterSpecs(LabSpec(cfg))
	if err != nil {
		return nil, err
	}
	l, err := lab.Up(ctx, lab.Options{Dir: dir, PortBase: PortBase, QPS: cfg.LabQPS, Out: log}, specs)
	if err != nil {
		return nil, err
	}
	l.Close()
	b := &Bench{Config: cfg, Lab: l, log: log, resultsDir: filepath.Join(root, "bench", "results")}
	if err := b.connect(root); err != nil {
		return b, err
	}
	for _, c := range b.clusters() {
		if c.ClientQPS() != b.Rome.ClientQPS() {
			return b, fmt.Errorf("rome runs its controller-manager and scheduler at %+v, %s at %+v: a comparison needs the same", b.Rome.ClientQPS(), c.Name, c.ClientQPS())
		}
	}
	peeringOnly := func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "ForeignCluster" || o.GetKind() == "ResourceOffer"
	}
	if err := framework.QuickStart(ctx, root, b.Rome, b.Milan, peeringOnly); err != nil {
		return b, fmt.Errorf("peering rome with milan: %w", err)
	}
	if b.Genoa != nil {
		if err := b.setupBroker(ctx, root); err != nil {
			return b, err
		}
	}
	return b, b.namespaces(ctx)
}

func (b *Bench) connect(root string) error {
	var err error
	if b.Rome, err = b.Lab.Cluster("rome"); err != nil {
		return err
	}
	if b.Milan, err = b.Lab.Cluster("milan"); err != nil {
		return err
	}
	if b.romeID, err = framework.IdentityOf(filepath.Join(root, "clusters/rome/install")); err != nil {
		return err
	}
	if b.milanID, err = framework.IdentityOf(filepath.Join(root, "clusters/milan/install")); err != nil {
		return err
	}
	if b.Config.TwoHops {
		if b.Genoa, err = b.Lab.Cluster("genoa"); err != nil {
			return err
		}
		if b.genoaC, err = framework.Client(b.Genoa); err != nil {
			return err
		}
	}
	if b.romeC, err = framework.Client(b.Rome); err != nil {
		return err
	}
	if b.milanC, err = framework.Client(b.Milan); err != nil {
		return err
	}
	if b.romeCS, err = creatorClient(b.Rome); err != nil {
		return err
	}
	b.milanCS, err = creatorClient(b.Milan)
	return err
}

// creatorClient has no client-side rate limit: Creator.QPS paces it.
func creatorClient(c *lab.Cluster) (kubernetes.Interface, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, -1
	return kubernetes.NewForConfig(cfg)
}

// namespaces offloads rome's one-hop namespace to milan only (its selector
// leaves genoa out), creates milan's vanilla one, rome's local one (not
// offloaded) when the local reference is measured and, with two hops,
// rome's namespace offloaded to genoa only.
func (b *Bench) namespaces(ctx context.Context) error {
	var err error
	if b.twin, err = b.offload(ctx, OffloadedNamespace, b.milanID.ClusterID); err != nil {
		return err
	}
	if err := b.milanC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: VanillaNamespace}}); err != nil {
		return err
	}
	if b.Config.Local {
		if err := b.romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: LocalNamespace}}); err != nil {
			return err
		}
	}
	if b.Genoa == nil {
		return nil
	}
	return b.twoHopsNamespaces(ctx)
}

// clusters are the lab's clusters whose processes and API servers are
// measured: all of them, so genoa's share shows in every path.
func (b *Bench) clusters() []*lab.Cluster {
	if b.Genoa == nil {
		return []*lab.Cluster{b.Rome, b.Milan}
	}
	return []*lab.Cluster{b.Rome, b.Milan, b.Genoa}
}

// Down stops the lab.
func (b *Bench) Down() error {
	if b == nil || b.Lab == nil {
		return nil
	}
	return lab.TearDownSuite(b.Lab)
}
