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

// Package storagebench measures how long claims take from creation to Bound
// through the virtual storage class liqo, with their pods on the virtual
// node (so the claim is bound on the provider), against the same claims and
// pods created directly on the provider with its own class ("vanilla"), in
// one run on one lab. Both sides end at rancher's local-path-provisioner on
// milan. It is run by `make bench` (hack/bench.sh), never in CI.
package storagebench

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	offloadingv1alpha1 "github.com/spillway-dev/spillway/api/offloading/v1alpha1"
	sharingv1alpha1 "github.com/spillway-dev/spillway/api/sharing/v1alpha1"
	"github.com/spillway-dev/spillway/e2e/bench/podbench"
	"github.com/spillway-dev/spillway/e2e/framework"
	"github.com/spillway-dev/spillway/e2e/lab"
)

// PortBase is the benchmark lab's loopback port block (the reflection
// benchmark's is 18640, the storage suite's 19000).
const PortBase = 19100

// Namespace is offloaded from rome to milan with the same name, pods on the
// virtual node only; VanillaNamespace is milan's own.
const (
	Namespace        = "bench-storage"
	VanillaNamespace = "bench-storage-vanilla"
)

// Config is one run's settings.
type Config struct {
	// Claims per side, created with one pod each at QPS (claim and pod).
	Claims int
	QPS    float64
	// Timeout bounds the wait for the last claim.
	Timeout time.Duration
}

// Result is one run: create → Bound for each side.
type Result struct {
	Claims int
	// Virtual is the claim of class liqo on rome; Twin its twin on milan
	// (the data's real claim); Vanilla the claim made on milan directly.
	Virtual, Twin, Vanilla podbench.Sample
}

// Bench is rome peered with milan, local-path on both, rome's namespace offloaded.
type Bench struct {
	cfg         Config
	lab         *lab.Lab
	rome, milan kubernetes.Interface
	log         io.Writer
}

// Setup starts the lab in <root>/.lab-e2e/bench-storage, installs
// local-path-provisioner and Spillway on both clusters, peers them and
// offloads Namespace with the Remote pod strategy.
func Setup(ctx context.Context, root string, cfg Config, log io.Writer) (*Bench, error) {
	if _, err := framework.Binaries(); err != nil {
		return nil, err
	}
	l, err := lab.StartForSuite(ctx, "bench-storage", PortBase, lab.MustSpecs("rome:nodes=1 milan:nodes=2,pods=250"), false)
	if err != nil {
		return nil, err
	}
	b := &Bench{cfg: cfg, lab: l, log: log}
	rome, _ := l.Cluster("rome")
	milan, _ := l.Cluster("milan")
	ids := map[*lab.Cluster]framework.Identity{}
	for _, c := range []*lab.Cluster{rome, milan} {
		if err := framework.InstallLocalPath(ctx, c); err != nil {
			return b, err
		}
		if err := framework.ApplyDir(ctx, c, filepath.Join(root, "kustomize/storage")); err != nil {
			return b, err
		}
		if ids[c], err = framework.IdentityOf(filepath.Join(root, "clusters", c.Name, "install")); err != nil {
			return b, err
		}
		if err := framework.Install(ctx, root, c, ids[c]); err != nil {
			return b, err
		}
	}
	if err := framework.Peer(ctx, rome, ids[rome], milan, ids[milan], nil); err != nil {
		return b, err
	}
	if b.rome, err = clientsetFor(rome); err != nil {
		return b, err
	}
	if b.milan, err = clientsetFor(milan); err != nil {
		return b, err
	}
	if _, err := b.milan.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: VanillaNamespace}}, metav1.CreateOptions{}); err != nil {
		return b, err
	}
	return b, offload(ctx, rome)
}

func clientsetFor(c *lab.Cluster) (kubernetes.Interface, error) {
	cfg, err := c.RESTConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = -1, -1 // the benchmark paces its own writes
	return kubernetes.NewForConfig(cfg)
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
		Spec: offloadingv1alpha1.NamespaceOffloadingSpec{NamespaceMappingStrategy: offloadingv1alpha1.EnforceSameNameMappingStrategy,
			PodOffloadingStrategy: offloadingv1alpha1.RemotePodOffloadingStrategy}}
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

// Run creates the claims and pods through the virtual class on rome, then
// the same directly on milan, each side timed until its claims are Bound.
func (b *Bench) Run(ctx context.Context) (Result, error) {
	n := b.cfg.Claims
	res := Result{Claims: n}
	ctx, cancel := context.WithTimeout(ctx, 2*b.cfg.Timeout+time.Duration(float64(4*n)/b.cfg.QPS*float64(time.Second)))
	defer cancel()

	virtual, twin := newBoundWatcher(n), newBoundWatcher(n)
	if err := virtual.start(ctx, b.rome, Namespace); err != nil {
		return res, err
	}
	if err := twin.start(ctx, b.milan, Namespace); err != nil {
		return res, err
	}
	fmt.Fprintf(b.log, "storagebench: %d claims of class %s with their pods on rome's virtual node\n", n, sharingv1alpha1.VirtualStorageClassName)
	sent, err := b.create(ctx, b.rome, Namespace, ptr.To(sharingv1alpha1.VirtualStorageClassName))
	if err != nil {
		return res, err
	}
	res.Virtual, res.Twin = virtual.wait(ctx, sent, b.cfg.Timeout), twin.wait(ctx, sent, b.cfg.Timeout)

	vanilla := newBoundWatcher(n)
	if err := vanilla.start(ctx, b.milan, VanillaNamespace); err != nil {
		return res, err
	}
	fmt.Fprintf(b.log, "storagebench: %d claims of milan's default class with their pods on milan\n", n)
	sent, err = b.create(ctx, b.milan, VanillaNamespace, nil)
	if err != nil {
		return res, err
	}
	res.Vanilla = vanilla.wait(ctx, sent, b.cfg.Timeout)
	return res, nil
}

// create makes n claims and a pod mounting each, paced at QPS, and returns
// each claim's creation time.
func (b *Bench) create(ctx context.Context, c kubernetes.Interface, ns string, class *string) (map[string]time.Time, error) {
	sent := map[string]time.Time{}
	tick := time.NewTicker(time.Duration(float64(time.Second) / b.cfg.QPS))
	defer tick.Stop()
	for i := range b.cfg.Claims {
		name := fmt.Sprintf("data-%04d", i)
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: class,
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
		sent[name] = time.Now()
		if _, err := c.CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
			return sent, fmt.Errorf("creating claim %s/%s: %w", ns, name, err)
		}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%04d", i)}, Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers:                    []corev1.Container{{Name: "app", Image: "busybox", VolumeMounts: []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}}},
			Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}}}}
		if _, err := c.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return sent, fmt.Errorf("creating pod %s/%s: %w", ns, pod.Name, err)
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return sent, ctx.Err()
		}
	}
	return sent, nil
}

// boundWatcher records when each claim of a namespace is first seen Bound.
type boundWatcher struct {
	want int
	mu   sync.Mutex
	seen map[string]time.Time
	done chan struct{}
}

func newBoundWatcher(want int) *boundWatcher {
	return &boundWatcher{want: want, seen: map[string]time.Time{}, done: make(chan struct{})}
}

func (w *boundWatcher) start(ctx context.Context, c kubernetes.Interface, ns string) error {
	watch, err := c.CoreV1().PersistentVolumeClaims(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("watching claims in %s: %w", ns, err)
	}
	go func() {
		defer watch.Stop()
		for ev := range watch.ResultChan() {
			pvc, ok := ev.Object.(*corev1.PersistentVolumeClaim)
			if !ok || pvc.Status.Phase != corev1.ClaimBound {
				continue
			}
			w.mu.Lock()
			if _, dup := w.seen[pvc.Name]; !dup {
				w.seen[pvc.Name] = time.Now()
				if len(w.seen) == w.want {
					close(w.done)
				}
			}
			w.mu.Unlock()
		}
	}()
	return nil
}

// wait returns the sample once every claim is Bound or the timeout passed.
func (w *boundWatcher) wait(ctx context.Context, sent map[string]time.Time, timeout time.Duration) podbench.Sample {
	select {
	case <-w.done:
	case <-time.After(timeout):
	case <-ctx.Done():
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var s podbench.Sample
	var first, last time.Time
	for name, at := range sent {
		if first.IsZero() || at.Before(first) {
			first = at
		}
		bound, ok := w.seen[name]
		if !ok {
			s.Unfinished++
			continue
		}
		s.Latencies = append(s.Latencies, bound.Sub(at))
		if bound.After(last) {
			last = bound
		}
	}
	if !last.IsZero() {
		s.Wall = last.Sub(first)
	}
	return s
}

// Down stops the lab.
func (b *Bench) Down() error {
	if b == nil || b.lab == nil {
		return nil
	}
	return lab.TearDownSuite(b.lab)
}
