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
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// PortBase is the benchmark lab's loopback port block.
const PortBase = 18500

// Namespaces of the two paths: the consumer's offloaded namespace, and the
// provider's namespace for pods created there directly.
const (
	OffloadedNamespace = "bench-offloaded"
	VanillaNamespace   = "bench-vanilla"
)

// Bench is a peered lab, rome consuming milan, ready to run batches.
type Bench struct {
	Config      Config
	Lab         *lab.Lab
	Rome, Milan *lab.Cluster
	romeID      framework.Identity
	// romeC and milanC are admin clients; romeCS and milanCS the creators'.
	romeC, milanC   client.Client
	romeCS, milanCS kubernetes.Interface
	// twin is the offloaded namespace's name on milan.
	twin string
	// resultsDir receives the manager's profiles.
	resultsDir string
	log        io.Writer
}

// Setup starts the lab in <root>/.lab-e2e/bench-pods with the same client QPS
// for both clusters' controller-manager and scheduler, peers rome with milan
// from clusters/ as the offloading suite does, and offloads the benchmark's
// namespace.
func Setup(ctx context.Context, root string, cfg Config, log io.Writer) (*Bench, error) {
	if _, err := framework.Binaries(); err != nil {
		return nil, err
	}
	dir := filepath.Join(root, ".lab-e2e", "bench-pods")
	if err := lab.DownDir(dir); err != nil {
		return nil, fmt.Errorf("clearing the previous benchmark lab in %s: %w", dir, err)
	}
	specs, err := lab.ParseClusterSpecs("rome " + ProviderSpec("milan", cfg.Counts))
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
	if b.Rome.ClientQPS() != b.Milan.ClientQPS() {
		return b, fmt.Errorf("rome runs its controller-manager and scheduler at %+v, milan at %+v: a comparison needs the same", b.Rome.ClientQPS(), b.Milan.ClientQPS())
	}
	peeringOnly := func(o *unstructured.Unstructured) bool {
		return o.GetKind() == "ForeignCluster" || o.GetKind() == "ResourceOffer"
	}
	if err := framework.QuickStart(ctx, root, b.Rome, b.Milan, peeringOnly); err != nil {
		return b, fmt.Errorf("peering rome with milan: %w", err)
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

// namespaces offloads rome's namespace to milan and creates milan's vanilla one.
func (b *Bench) namespaces(ctx context.Context) error {
	if err := b.romeC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: OffloadedNamespace}}); err != nil {
		return err
	}
	if err := b.romeC.Create(ctx, &offloadingv1alpha1.NamespaceOffloading{
		ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: OffloadedNamespace},
		Spec:       offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.DefaultNameMappingStrategy},
	}); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := framework.Poll(wctx, func(ctx context.Context) error {
		no := &offloadingv1alpha1.NamespaceOffloading{}
		if err := b.romeC.Get(ctx, client.ObjectKey{Namespace: OffloadedNamespace, Name: "offloading"}, no); err != nil {
			return err
		}
		if no.Status.OffloadingPhase != offloadingv1alpha1.ReadyOffloadingPhase {
			return fmt.Errorf("NamespaceOffloading %s/offloading is %q, not Ready", OffloadedNamespace, no.Status.OffloadingPhase)
		}
		b.twin = no.Status.RemoteNamespaceName
		return nil
	}); err != nil {
		return err
	}
	return b.milanC.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: VanillaNamespace}})
}

// Down stops the lab.
func (b *Bench) Down() error {
	if b == nil || b.Lab == nil {
		return nil
	}
	return lab.TearDownSuite(b.Lab)
}
