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

package reflectbench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// PortBase is the benchmark lab's loopback port block (the pod benchmark's
// is 18500).
const PortBase = 18640

// Namespace is offloaded from rome to milan with the same name.
const Namespace = "bench-reflection"

// Config is one run's settings.
type Config struct {
	// Objects per kind, and the rate at which they are updated (the same
	// writes are what both watchers see).
	Objects int
	QPS     float64
	// Timeout bounds the wait for the last copy.
	Timeout time.Duration
}

// Bench is rome peered with milan, rome's namespace offloaded.
type Bench struct {
	cfg               Config
	lab               *lab.Lab
	romeDyn, milanDyn dynamic.Interface
	log               io.Writer
}

// Setup starts the lab in <root>/.lab-e2e/bench-reflection, installs
// Spillway with rome's and milan's committed identities, peers them and
// offloads Namespace.
func Setup(ctx context.Context, root string, cfg Config, log io.Writer) (*Bench, error) {
	if _, err := framework.Binaries(); err != nil {
		return nil, err
	}
	// The same lab start as the e2e suites: <root>/.lab-e2e/bench-reflection,
	// cleared first.
	l, err := lab.StartForSuite(ctx, "bench-reflection", PortBase, lab.MustSpecs("rome milan:nodes=2,cpu=8,memory=32Gi"), false)
	if err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg, lab: l, log: log}
	rome, _ := l.Cluster("rome")
	milan, _ := l.Cluster("milan")
	ids := map[*lab.Cluster]framework.Identity{}
	for _, c := range []*lab.Cluster{rome, milan} {
		if ids[c], err = framework.IdentityOf(filepath.Join(root, "clusters", c.Name, "install")); err != nil {
			return b, err
		}
		if err := framework.Install(ctx, root, c, ids[c]); err != nil {
			return b, err
		}
	}
	// The lab's stand-in for External Secrets carries rome's identity.
	if err := framework.Peer(ctx, rome, ids[rome], milan, ids[milan], nil); err != nil {
		return b, err
	}
	// The reflectors start with the peering, and their resync passes follow
	// every 5 minutes (--reflection-resync-period): a tail in a window
	// 5 or 10 minutes on is theirs.
	fmt.Fprintf(log, "reflectbench: peered at %s\n", time.Now().UTC().Format(time.TimeOnly))
	if b.romeDyn, err = dynamicFor(rome); err != nil {
		return b, err
	}
	if b.milanDyn, err = dynamicFor(milan); err != nil {
		return b, err
	}
	return b, offload(ctx, rome)
}

func dynamicFor(c *lab.Cluster) (dynamic.Interface, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, -1 // the benchmark paces its own writes
	return dynamic.NewForConfig(cfg)
}

func offload(ctx context.Context, rome *lab.Cluster) error {
	c, err := framework.Client(rome)
	if err != nil {
		return err
	}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}); err != nil {
		return err
	}
	no := &offloadingv1alpha1.NamespaceOffloading{ObjectMeta: metav1.ObjectMeta{Name: "offloading", Namespace: Namespace},
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.EnforceSameNameMappingStrategy}}
	if err := c.Create(ctx, no); err != nil {
		return err
	}
	return framework.Poll(ctx, func(ctx context.Context) error {
		if err := c.Get(ctx, client.ObjectKeyFromObject(no), no); err != nil {
			return err
		}
		if no.Status.OffloadingPhase != offloadingv1alpha1.ReadyOffloadingPhase {
			return fmt.Errorf("namespace %s is %q, not Ready", Namespace, no.Status.OffloadingPhase)
		}
		return nil
	})
}

// Run creates cfg.Objects of kind, waits for their copies, then updates them
// all once and measures when each update is seen locally and on milan.
func (b *Bench) Run(ctx context.Context, kind Kind) (Batch, error) {
	n := b.cfg.Objects
	ctx, cancel := context.WithTimeout(ctx, b.cfg.Timeout+time.Duration(float64(2*n)/b.cfg.QPS*float64(time.Second)))
	defer cancel()
	created := newWatcher(revisionOf(0), n)
	if err := watch(ctx, b.milanDyn, kind, Namespace, created); err != nil {
		return Batch{}, err
	}
	fmt.Fprintf(b.log, "reflectbench: creating %d %ss\n", n, kind.Name)
	for i := range n {
		if _, err := b.romeDyn.Resource(kind.Resource).Namespace(Namespace).Create(ctx, kind.Object(Namespace, i), metav1.CreateOptions{}); err != nil {
			return Batch{}, fmt.Errorf("creating %s %d: %w", kind.Name, i, err)
		}
	}
	select {
	case <-created.done:
	case <-ctx.Done():
		return Batch{}, fmt.Errorf("only %d of %d %s copies appeared on milan: %w", len(created.seen), n, kind.Name, ctx.Err())
	}
	local, remote := newWatcher(revisionOf(1), n), newWatcher(revisionOf(1), n)
	if err := watch(ctx, b.romeDyn, kind, Namespace, local); err != nil {
		return Batch{}, err
	}
	if err := watch(ctx, b.milanDyn, kind, Namespace, remote); err != nil {
		return Batch{}, err
	}
	milan, _ := b.lab.Cluster("milan")
	before, err := providerWrites(ctx, milan, kind.Resource.Resource)
	if err != nil {
		return Batch{}, err
	}
	fmt.Fprintf(b.log, "reflectbench: updating %d %ss at %g/s\n", n, kind.Name, b.cfg.QPS)
	sent, err := bump(ctx, b.romeDyn, kind, Namespace, n, revisionOf(1), b.cfg.QPS)
	if err != nil {
		return Batch{}, err
	}
	for _, w := range []*watcher{local, remote} {
		select {
		case <-w.done:
		case <-ctx.Done(): // the sample counts the missing ones as unfinished
		}
	}
	after, err := providerWrites(ctx, milan, kind.Resource.Resource)
	if err != nil {
		return Batch{}, err
	}
	return Batch{Kind: kind.Name, Objects: n, Vanilla: sample(sent, local), Reflected: sample(sent, remote), Provider: after.since(before)}, nil
}

// Down stops the lab.
func (b *Bench) Down() error {
	if b == nil || b.lab == nil {
		return nil
	}
	return lab.TearDownSuite(b.lab)
}
